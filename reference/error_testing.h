// error_testing.h (testonly): the message of the std::invalid_argument an expression throws, for tests that
// check that bad input is refused with a message naming the problem.
//
//   EXPECT_NE(ErrorOf([&] { Parse("x"); }).find("unknown solver"), std::string::npos);
//
// ErrorOf(f) calls f() and returns the what() of the std::invalid_argument it throws, or "" when it throws
// none (any other exception propagates, so a test sees it fail).
// EXPECT_CONTAINS(message, text): a gtest expectation that the string `message` contains `text`; on failure
// it prints the whole message.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#define EXPECT_CONTAINS(message, text)                                           \
  do {                                                                           \
    const std::string lqcd_message_ = (message);                                 \
    EXPECT_NE(lqcd_message_.find(text), std::string::npos) << "message: " << lqcd_message_; \
  } while (0)

namespace lqcd {

template <typename F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace lqcd
