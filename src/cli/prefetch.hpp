// SPDX-License-Identifier: LGPL-2.1-or-later
// A read of the host started ahead on a thread of its own, so that it runs beside the rest of the
// start, and taken once by the step that needs it.
#pragma once

#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace rf::cli {

template <typename T>
class Prefetched {
public:
  // Starts `read` for `key` unless one is pending; without a thread to be had, nothing starts
  // (take() then finds nothing and the caller reads itself).
  void start(const std::string& key, std::function<T()> read) {
    const std::lock_guard<std::mutex> lock(mu_);
    if (result_.valid()) return;
    try {
      result_ = std::async(std::launch::async, std::move(read));
      key_ = key;
    } catch (...) {
      result_ = {};
    }
  }
  // The result of the read started for `key`, waited for; nullopt when none was (or one for
  // another key was: it is left pending for drop()).
  std::optional<T> take(const std::string& key) {
    std::future<T> started;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      if (!result_.valid() || key_ != key) return std::nullopt;
      started = std::move(result_);
    }
    return started.get();
  }
  // Waits for a read nobody took and drops it (before the launcher forks or starts threads).
  void drop() {
    const std::lock_guard<std::mutex> lock(mu_);
    if (result_.valid()) result_.wait();
    result_ = {};
  }

private:
  std::mutex mu_;
  std::string key_;
  std::future<T> result_;
};

}  // namespace rf::cli
