// SPDX-License-Identifier: LGPL-2.1-or-later
// net: HTTP/1 requests one after another for the relay on port 80: every head names its host,
// a head goes on only when complete, bodies are followed by their framing, and whatever two
// readers could split differently is refused.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ringfence/net/http_stream.hpp"

using rf::net::HttpRequestStream;

namespace {

struct Fed {
  std::string forward;
  std::vector<std::string> names;
  std::string refusal;
};

// Feeds the bytes in pieces of `piece` (every split must give the same result).
Fed feed(const std::string& bytes, std::size_t piece) {
  HttpRequestStream s;
  Fed out;
  for (std::size_t at = 0; at < bytes.size() && out.refusal.empty(); at += piece) {
    auto step = s.feed(std::string_view(bytes).substr(at, piece));
    out.forward += step.forward;
    out.names.insert(out.names.end(), step.names.begin(), step.names.end());
    out.refusal = step.refusal;
  }
  return out;
}

void same_for_every_split(const std::string& bytes, const std::vector<std::string>& names, bool refused) {
  for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{7}, bytes.size()}) {
    CAPTURE(piece);
    Fed f = feed(bytes, piece);
    CHECK(f.names == names);
    CHECK(f.refusal.empty() == !refused);
    if (!refused) CHECK(f.forward == bytes);
  }
}

}  // namespace

TEST_CASE("http stream: each request of a keep-alive connection names its host") {
  const std::string two =
      "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\nGET /x HTTP/1.1\r\nHost: Other.Test:80\r\n\r\n";
  same_for_every_split(two, {"allowed.test", "other.test"}, false);
  const std::string post =
      "POST /a HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 30\r\n\r\n"
      "GET / HTTP/1.1\r\nHost: evil.t\r\n"  // 30 bytes of body that look like a request
      "GET / HTTP/1.1\r\nHost: two.test\r\n\r\n";
  same_for_every_split(post, {"allowed.test", "two.test"}, false);
  const std::string chunked =
      "POST / HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n0\r\nTrailer: x\r\n\r\n"
      "GET / HTTP/1.1\r\nHost: next.test\r\n\r\n";
  same_for_every_split(chunked, {"allowed.test", "next.test"}, false);
}

TEST_CASE("http stream: an incomplete head is held back") {
  HttpRequestStream s;
  auto a = s.feed("GET / HTTP/1.1\r\nHost: allowed.test\r\n");
  CHECK(a.forward.empty());
  CHECK(a.names.empty());
  auto b = s.feed("\r\nGET / HTTP/1.1\r\nHost: oth");
  CHECK(b.names == std::vector<std::string>{"allowed.test"});
  CHECK(b.forward == "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n");  // not the second head's start
}

TEST_CASE("http stream: what servers could read differently is refused") {
  for (const char* bad : {
           "GET / HTTP/1.1\r\nX: a\nHost: evil.test\r\nHost2: x\r\n\r\n",  // a bare LF inside a field
           "GET / HTTP/1.1\r\nHost: allowed.test\r\n folded\r\n\r\n",      // obs-fold
           "GET / HTTP/1.1\r\nHost : allowed.test\r\n\r\n",                // a space before the colon
           "GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n",       // two hosts
           "GET / HTTP/1.1\r\n\r\n",                                       // no host
           "CONNECT evil.test:443 HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
           "GET / HTTP/1.1\r\nHost: allowed.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
           "POST / HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
           "POST / HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
           "POST / HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: -1\r\n\r\n",
           "POST / HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
           "POST / HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
           "POST / HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
           "GET http://evil.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
           "SSH-2.0-OpenSSH\r\n\r\n",
       }) {
    CAPTURE(bad);
    Fed f = feed(bad, 1);
    CHECK_FALSE(f.refusal.empty());
    CHECK(f.names.size() <= 1);  // a body refused after its accepted head
    CHECK(f.forward.find("evil") == std::string::npos);
    CHECK(f.forward.size() < std::string(bad).size());
  }
  // A refused stream stays refused.
  HttpRequestStream s;
  CHECK_FALSE(s.feed("CONNECT x:1 HTTP/1.1\r\nHost: a.test\r\n\r\n").refusal.empty());
  CHECK_FALSE(s.feed("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").refusal.empty());
  // A head that never ends is refused past 16 KiB.
  HttpRequestStream t;
  std::string big = "GET / HTTP/1.1\r\nHost: a.test\r\nX: " + std::string(20000, 'a');
  CHECK_FALSE(t.feed(big).refusal.empty());
}

TEST_CASE("http stream: the checked part before a refusal is kept, the refused part never") {
  HttpRequestStream s;
  const std::string first = "GET /a HTTP/1.1\r\nHost: allowed.test\r\n\r\n";
  auto step = s.feed(first + "GET /b HTTP/1.1\r\nHost: other.test\r\n\r\nGET /c HTTP/1.1\r\nX:\n\r\n\r\n");
  CHECK(step.names == std::vector<std::string>{"allowed.test", "other.test"});
  REQUIRE(step.starts.size() == 2);
  CHECK(step.starts[0] == 0);
  CHECK(step.starts[1] == first.size());  // the relay sends up to here when other.test is refused
  CHECK_FALSE(step.refusal.empty());      // the third head has a bare LF
  CHECK(step.forward.find("/c") == std::string::npos);
  // A chunk line is passed on only once complete and read.
  HttpRequestStream t;
  auto a = t.feed("POST / HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n1");
  CHECK(a.forward.ends_with("\r\n\r\n"));
  auto b = t.feed("0;x\rq\r\n");
  CHECK_FALSE(b.refusal.empty());
  CHECK(b.forward.empty());
}
