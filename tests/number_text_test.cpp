// moirai::trace::number_text and fixed: the one number formatter. Callers that once printed
// through a stream rely on it writing what the stream wrote, and no number may come out cut.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <string>

#include "moirai/trace/number_text.h"

namespace {

using moirai::trace::fixed;
using moirai::trace::number_text;

constexpr double kValues[] = {0.0, -0.0, 2.5, 12, 0.000123456, -1234.56789, 1e20, 3.999999999,
                              std::numeric_limits<double>::infinity()};

TEST(NumberText, FixedWritesWhatAStreamSetToFixedWrites) {
  for (const double value : kValues) {
    for (int digits = 0; digits <= 6; ++digits) {
      std::ostringstream stream;
      stream << std::fixed;
      stream.precision(digits);
      stream << value;
      EXPECT_EQ(fixed(value, digits), stream.str()) << value << " with " << digits << " digits";
    }
  }
}

TEST(NumberText, PercentGWritesWhatADefaultStreamWrites) {
  for (const double value : kValues) {
    std::ostringstream stream;
    stream << value;
    EXPECT_EQ(number_text(value, "%g"), stream.str()) << value;
  }
}

TEST(NumberText, TheFormatsTextStaysAroundTheNumber) {
  EXPECT_EQ(number_text(1.5, "%.3f ms"), "1.500 ms");
  EXPECT_EQ(number_text(0.25, "%.1f%%"), "0.2%");  // printf rounds half to even: 0.25 -> 0.2
  EXPECT_EQ(fixed(-0.04, 1), "-0.0");
}

TEST(NumberText, ALongNumberIsNotCut) {
  const std::string text = number_text(1e80, "%.3f");
  EXPECT_EQ(text.size(), 81u + 4u) << text;  // 81 digits, the point and three decimals
  EXPECT_EQ(text.substr(text.size() - 4), ".000");
  EXPECT_EQ(fixed(1e80, 3), text);
}

}  // namespace
