#include "tickwire/prediction/motion.h"

#include <cmath>

namespace tickwire::prediction {

float distance(const Point& a, const Point& b) {
  const float dx = a[0] - b[0];
  const float dy = a[1] - b[1];
  const float dz = a[2] - b[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

}  // namespace tickwire::prediction
