// SPDX-License-Identifier: LGPL-2.1-or-later
// executables_for: PATH lookup as execvp does it, ELF PT_INTERP, #! lines (one level of env).
#include "exec_resolve.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "ringfence/base/sys.hpp"
#include "ringfence/base/unique_fd.hpp"

namespace rf::cli {
namespace {

using base::Error;
using base::Result;

bool executable_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

Result<std::string> find_on_path(const std::string& cmd, const std::string& path_env) {
  std::string found;
  if (cmd.find('/') != std::string::npos) {
    found = cmd;
  } else {
    std::size_t start = 0;
    while (start <= path_env.size() && found.empty()) {
      std::size_t end = path_env.find(':', start);
      if (end == std::string::npos) end = path_env.size();
      std::string dir = path_env.substr(start, end - start);
      std::string candidate = (dir.empty() ? "." : dir) + "/" + cmd;
      if (executable_file(candidate)) found = candidate;
      start = end + 1;
    }
  }
  char buf[PATH_MAX];
  if (found.empty() || ::realpath(found.c_str(), buf) == nullptr)
    return Error(ENOENT, "shell off: cannot find the command " + cmd);
  return std::string(buf);
}

}  // namespace

std::string elf_interpreter(const std::string& file) {
  base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  Elf64_Ehdr eh{};
  if (!fd.valid() || ::pread(fd.get(), &eh, sizeof eh, 0) != static_cast<ssize_t>(sizeof eh)) return {};
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) return {};
  for (int i = 0; i < eh.e_phnum && i < 256; ++i) {
    Elf64_Phdr ph{};
    off_t at = static_cast<off_t>(eh.e_phoff + static_cast<Elf64_Off>(i) * eh.e_phentsize);
    if (::pread(fd.get(), &ph, sizeof ph, at) != static_cast<ssize_t>(sizeof ph)) return {};
    if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > PATH_MAX) continue;
    std::string interp(ph.p_filesz, '\0');
    if (::pread(fd.get(), interp.data(), interp.size(), static_cast<off_t>(ph.p_offset)) !=
        static_cast<ssize_t>(interp.size()))
      return {};
    interp.resize(std::strlen(interp.c_str()));
    return interp;
  }
  return {};
}

namespace {

// "#!/usr/bin/env python3 -u" -> {"/usr/bin/env", "python3"}; "#!/bin/sh" -> {"/bin/sh"}.
std::vector<std::string> shebang(const std::string& file) {
  base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  char buf[256] = {};
  ssize_t n = fd.valid() ? ::pread(fd.get(), buf, sizeof buf - 1, 0) : -1;
  if (n < 3 || buf[0] != '#' || buf[1] != '!') return {};
  std::string line(buf + 2, static_cast<size_t>(n - 2));
  line = line.substr(0, line.find('\n'));
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size() && words.size() < 2) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  if (!words.empty() && words[0].rfind("/env") != words[0].size() - 4) words.resize(1);
  return words;
}

}  // namespace

Result<std::vector<std::string>> executables_for(const std::string& command, const std::string& path_env) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& p) {
    char buf[PATH_MAX];
    std::string real = ::realpath(p.c_str(), buf) ? buf : p;
    if (std::find(out.begin(), out.end(), real) == out.end()) out.push_back(real);
    return real;
  };
  RF_TRY_ASSIGN(program, find_on_path(command, path_env));
  std::vector<std::string> todo{program};
  for (int depth = 0; depth < 4 && !todo.empty(); ++depth) {
    std::vector<std::string> next;
    for (const auto& f : todo) {
      std::string real = add(f);
      if (std::string interp = elf_interpreter(real); !interp.empty()) add(interp);
      auto sb = shebang(real);
      if (sb.empty()) continue;
      next.push_back(sb[0]);
      if (sb.size() == 2) {  // #!/usr/bin/env NAME: NAME is found on PATH too
        auto named = find_on_path(sb[1], path_env);
        if (named) next.push_back(*named);
      }
    }
    todo = next;
  }
  return out;
}

}  // namespace rf::cli
