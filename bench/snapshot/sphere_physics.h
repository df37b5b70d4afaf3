#pragma once
// Rigid spheres in contact, for the benchmark's asteroids: what a game
// engine's rigid bodies with the default physics material do when they
// touch. Contacts are solved with sequential impulses (Catto's scheme, as
// in Box2D and PhysX's PGS solver): each iteration applies, at every
// contact, the normal impulse that stops the approach (zero restitution,
// clamped so contacts only push) and a friction impulse against the
// sliding velocity at the contact point, clamped to the Coulomb cone
// (|friction| <= mu * normal). The friction impulse acts off the centre,
// so contacts change spins: a sliding body is spun up toward rolling.
// Overlap left after the step is removed by moving the bodies apart
// without touching their velocities, so resolving it adds no energy.
//
// Deterministic: double precision, a fixed order of bodies, contacts and
// iterations; the same inputs give the same state on the same build.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scene.h"

namespace tickwire::bench {

// Turns the unit quaternion q (x, y, z, w) by angular velocity (wx, wy, wz)
// over dt: q' = q + dt/2 * (w as a quaternion) * q, renormalized.
void integrate_orientation(double* q, double wx, double wy, double wz, double dt);

struct SphereBody {
  V3 p;                        // centre, m
  V3 v;                        // m/s
  V3 w;                        // angular velocity, rad/s, world frame
  double q[4] = {0, 0, 0, 1};  // orientation x, y, z, w
  double radius = 0;
  double inv_mass = 0;     // 0: static
  double inv_inertia = 0;  // solid sphere: 1 / (2/5 m r^2)
};

struct ContactConfig {
  // PhysX's default material, which Unity uses when a collider names
  // none: 0.6 static and dynamic friction, no bounce (averaged over the
  // pair, which leaves these values as they are).
  double friction = 0.6;
  int iterations = 8;
  double slop = 0.005;      // m of overlap left alone, so resting contacts do not jitter
  double correction = 0.8;  // share of the rest removed each step
  double max_angular = 50;  // rad/s, Unity's default maximum angular speed
};

struct ContactStats {
  std::uint64_t contacts = 0;  // contact-steps: one per touching pair per step
  std::uint64_t sliding = 0;   // of those, where friction reached its cone and the bodies slid
};

class SphereWorld {
 public:
  explicit SphereWorld(ContactConfig config = {}) : config_(config) {}

  std::size_t add(const SphereBody& body);
  std::vector<SphereBody>& bodies() { return bodies_; }
  const std::vector<SphereBody>& bodies() const { return bodies_; }
  // True when a sphere at `p` of radius `r` overlaps any body.
  bool overlaps(V3 p, double r) const;

  // Finds contacts, solves them, integrates positions and orientations
  // over dt, then removes leftover overlap.
  void step(double dt);
  const ContactStats& stats() const { return stats_; }

 private:
  struct Contact {
    std::size_t a = 0;
    std::size_t b = 0;
    V3 n;  // unit, from a to b
    double normal_mass = 0;
    double tangent_mass = 0;
    double jn = 0;  // accumulated normal impulse
    V3 jt;          // accumulated friction impulse
  };
  void find_contacts();
  void solve(Contact& c);
  void integrate(SphereBody& b, double dt) const;
  void separate();

  ContactConfig config_;
  std::vector<SphereBody> bodies_;
  std::vector<std::size_t> order_;  // by lowest x, for the sweep
  std::vector<Contact> contacts_;
  ContactStats stats_;
};

}  // namespace tickwire::bench
