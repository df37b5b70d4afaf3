#include "sphere_physics.h"

#include <algorithm>
#include <cmath>

namespace tickwire::bench {

std::size_t SphereWorld::add(const SphereBody& body) {
  bodies_.push_back(body);
  order_.push_back(bodies_.size() - 1);
  return bodies_.size() - 1;
}

bool SphereWorld::overlaps(V3 p, double r) const {
  for (const SphereBody& b : bodies_) {
    const V3 d = b.p - p;
    const double reach = b.radius + r;
    if (d.dot(d) < reach * reach) return true;
  }
  return false;
}

void SphereWorld::step(double dt) {
  find_contacts();
  for (int i = 0; i < config_.iterations; ++i) {
    for (Contact& c : contacts_) solve(c);
  }
  for (const Contact& c : contacts_) {
    const double cone = config_.friction * c.jn;
    if (c.jn > 0 && c.jt.length() >= cone * (1 - 1e-9)) ++stats_.sliding;
  }
  stats_.contacts += contacts_.size();
  for (SphereBody& b : bodies_) integrate(b, dt);
  separate();
}

// Sweep and prune along x: the order changes little from step to step, so
// an insertion sort keeps it in a few passes.
void SphereWorld::find_contacts() {
  contacts_.clear();
  auto low = [&](std::size_t i) { return bodies_[i].p.x - bodies_[i].radius; };
  for (std::size_t i = 1; i < order_.size(); ++i) {
    const std::size_t moving = order_[i];
    std::size_t j = i;
    while (j > 0 && low(order_[j - 1]) > low(moving)) {
      order_[j] = order_[j - 1];
      --j;
    }
    order_[j] = moving;
  }
  for (std::size_t i = 0; i < order_.size(); ++i) {
    const SphereBody& a = bodies_[order_[i]];
    const double high = a.p.x + a.radius;
    for (std::size_t j = i + 1; j < order_.size() && low(order_[j]) <= high; ++j) {
      std::size_t ia = order_[i];
      std::size_t ib = order_[j];
      if (ia > ib) std::swap(ia, ib);  // the pair's order must not depend on the sweep's
      const SphereBody& x = bodies_[ia];
      const SphereBody& y = bodies_[ib];
      if (x.inv_mass == 0 && y.inv_mass == 0) continue;
      const V3 d = y.p - x.p;
      const double reach = x.radius + y.radius;
      const double d2 = d.dot(d);
      if (d2 >= reach * reach || d2 < 1e-18) continue;
      Contact c;
      c.a = ia;
      c.b = ib;
      c.n = d * (1.0 / std::sqrt(d2));
      // Along the normal the lever arms are parallel to it, so only the
      // masses resist; across it a sphere's rotation adds r^2 / I.
      const double masses = x.inv_mass + y.inv_mass;
      c.normal_mass = 1.0 / masses;
      c.tangent_mass = 1.0 / (masses + x.radius * x.radius * x.inv_inertia + y.radius * y.radius * y.inv_inertia);
      contacts_.push_back(c);
    }
  }
  // Solve in a fixed order, whatever order the sweep found them in.
  std::sort(contacts_.begin(), contacts_.end(),
            [](const Contact& l, const Contact& r) { return l.a != r.a ? l.a < r.a : l.b < r.b; });
}

void SphereWorld::solve(Contact& c) {
  SphereBody& a = bodies_[c.a];
  SphereBody& b = bodies_[c.b];
  const V3 ra = c.n * a.radius;     // centre of a to the contact point
  const V3 rb = c.n * (-b.radius);  // centre of b to the contact point
  auto relative = [&] { return (b.v + b.w.cross(rb)) - (a.v + a.w.cross(ra)); };
  auto apply = [&](V3 impulse) {  // to b, and its opposite to a
    a.v = a.v - impulse * a.inv_mass;
    a.w = a.w - ra.cross(impulse) * a.inv_inertia;
    b.v = b.v + impulse * b.inv_mass;
    b.w = b.w + rb.cross(impulse) * b.inv_inertia;
  };

  const double vn = relative().dot(c.n);
  const double jn = std::max(c.jn - vn * c.normal_mass, 0.0);
  apply(c.n * (jn - c.jn));
  c.jn = jn;

  const V3 dv = relative();
  const V3 slide = dv - c.n * dv.dot(c.n);
  V3 jt = c.jt - slide * c.tangent_mass;
  const double cone = config_.friction * c.jn;
  const double length = jt.length();
  if (length > cone) jt = length > 0 ? jt * (cone / length) : V3{};
  apply(jt - c.jt);
  c.jt = jt;
}

void integrate_orientation(double* q, double wx, double wy, double wz, double dt) {
  const double dx = 0.5 * dt * (wy * q[2] - wz * q[1] + q[3] * wx);
  const double dy = 0.5 * dt * (wz * q[0] - wx * q[2] + q[3] * wy);
  const double dz = 0.5 * dt * (wx * q[1] - wy * q[0] + q[3] * wz);
  const double dw = 0.5 * dt * (-wx * q[0] - wy * q[1] - wz * q[2]);
  q[0] += dx;
  q[1] += dy;
  q[2] += dz;
  q[3] += dw;
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) q[i] /= n;
}

void SphereWorld::integrate(SphereBody& b, double dt) const {
  if (b.inv_mass == 0) return;
  const double spin = b.w.length();
  if (spin > config_.max_angular) b.w = b.w * (config_.max_angular / spin);
  b.p = b.p + b.v * dt;
  integrate_orientation(b.q, b.w.x, b.w.y, b.w.z, dt);
}

void SphereWorld::separate() {
  for (const Contact& c : contacts_) {
    SphereBody& a = bodies_[c.a];
    SphereBody& b = bodies_[c.b];
    const V3 d = b.p - a.p;
    const double dist = d.length();
    const double overlap = a.radius + b.radius - dist - config_.slop;
    if (overlap <= 0 || dist < 1e-9) continue;
    const V3 n = d * (1.0 / dist);
    const double share = config_.correction * overlap / (a.inv_mass + b.inv_mass);
    a.p = a.p - n * (share * a.inv_mass);
    b.p = b.p + n * (share * b.inv_mass);
  }
}

}  // namespace tickwire::bench
