// text_format.h: number formatting shared by the experiment mains' printed tables and markdown.
//
//   Fixed(v, digits)   v in fixed notation with `digits` digits after the point (std::fixed, std::setprecision).
#pragma once

#include <iomanip>
#include <sstream>
#include <string>

namespace lqcd::experiments {

inline std::string Fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace lqcd::experiments
