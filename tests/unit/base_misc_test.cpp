// SPDX-License-Identifier: LGPL-2.1-or-later
// Result/Error, string helpers, parse_fd and the fd reading helpers.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "ringfence/base/result.hpp"
#include "ringfence/base/strings.hpp"
#include "ringfence/base/sys.hpp"

using namespace rf::base;

namespace {

Result<int> half(int v) {
  if (v % 2 != 0) return rf::base::Error(EINVAL, "odd " + std::to_string(v));
  return v / 2;
}

Result<int> quarter(int v) {
  RF_TRY_ASSIGN(h, half(v));
  RF_TRY_ASSIGN(q, half(h));
  return q;
}

Status check_even(int v) {
  RF_TRY(half(v));
  return {};
}

}  // namespace

TEST_CASE("Result carries a value or an Error") {
  auto ok = half(8);
  REQUIRE(ok);
  CHECK(ok.has_value());
  CHECK(*ok == 4);
  auto bad = half(3);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code() == EINVAL);
  CHECK(bad.error().message() == "odd 3");
}

TEST_CASE("RF_TRY and RF_TRY_ASSIGN propagate the first error") {
  CHECK(*quarter(8) == 2);
  auto r = quarter(6);  // 6 -> 3 -> odd
  REQUIRE_FALSE(r);
  CHECK(r.error().message() == "odd 3");
  CHECK(check_even(4));
  CHECK_FALSE(check_even(5));
}

TEST_CASE("Error::describe and context") {
  Error plain = rf::base::Error(0, "Unknown option --x");
  CHECK(plain.code() == 0);
  CHECK(plain.describe() == "Unknown option --x");
  Error e(ENOENT, "open /nope");
  CHECK(e.describe() == "open /nope: No such file or directory");
  e.context("reading config");
  CHECK(e.message() == "reading config: open /nope");
  Error moved = Error(EBADF, "read").context("Can't read");
  CHECK(moved.describe() == "Can't read: read: Bad file descriptor");
  errno = EPERM;
  CHECK(errno_error("mount").describe() == "mount: Operation not permitted");
}

TEST_CASE("split keeps empty fields") {
  CHECK(split("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
  CHECK(split("", ',') == std::vector<std::string>{""});
  CHECK(split("x,", ',') == std::vector<std::string>{"x", ""});
  CHECK(starts_with("--bind-try", "--bind"));
  CHECK_FALSE(starts_with("--b", "--bind"));
}

TEST_CASE("json_quote escapes quotes, backslashes and control characters") {
  CHECK(json_quote("plain") == "\"plain\"");
  CHECK(json_quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_quote("l1\nl2\t\r") == "\"l1\\nl2\\t\\r\"");
  CHECK(json_quote(std::string("\x01", 1)) == "\"\\u0001\"");
  CHECK(json_quote("\xc3\xa9") == "\"\xc3\xa9\"");  // UTF-8 passes through
}

TEST_CASE("parse_fd accepts plain non-negative decimals only") {
  int fd = -7;
  CHECK(parse_fd("0", fd));
  CHECK(fd == 0);
  CHECK(parse_fd("42", fd));
  CHECK(fd == 42);
  CHECK(parse_fd("2147483647", fd));
  CHECK(fd == 2147483647);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "12x", "0x10", "2147483648", "99999999999", "-0"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_fd(bad, fd));
  }
}

TEST_CASE("read_all reads to EOF and reports read errors") {
  int fd = memfd_create("rf-test", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  std::string big(100000, 'x');
  big[99999] = '\0';
  REQUIRE(write_all(fd, big));
  REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
  auto r = read_all(fd);
  REQUIRE(r);
  CHECK(*r == big);
  close(fd);
  auto closed = read_all(fd);
  REQUIRE_FALSE(closed);
  CHECK(closed.error().code() == EBADF);
}

TEST_CASE("open_fd names the path and read_file reads it") {
  auto missing = open_fd("/nonexistent/ringfence-test", O_RDONLY);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == ENOENT);
  CHECK(missing.error().message() == "open /nonexistent/ringfence-test");
  auto self = read_file("/proc/self/comm");
  REQUIRE(self);
  CHECK_FALSE(self->empty());
}

TEST_CASE("reworded keeps the errno and the old message as the cause") {
  rf::base::Error inner(ENOENT, "openat2 /proc/sys");
  rf::base::Error outer = inner.reworded("Can't mkdir /proc/sys/x");
  CHECK(outer.code() == ENOENT);
  CHECK(outer.message() == "Can't mkdir /proc/sys/x");
  CHECK(outer.describe() == "Can't mkdir /proc/sys/x: No such file or directory");
  CHECK(outer.cause() == "openat2 /proc/sys");
  CHECK(outer.describe_with_cause() ==
        "Can't mkdir /proc/sys/x: No such file or directory [openat2 /proc/sys]");
  rf::base::Error twice = outer.reworded("sandbox setup");
  CHECK(twice.cause() == "Can't mkdir /proc/sys/x (openat2 /proc/sys)");
  CHECK(inner.cause().empty());
  CHECK(inner.describe_with_cause() == inner.describe());
  // A rewording that repeats the old message shows it once.
  rf::base::Error repeated = inner.reworded("cgroup limits: " + inner.message());
  CHECK(repeated.describe_with_cause() == "cgroup limits: openat2 /proc/sys: No such file or directory");
}
