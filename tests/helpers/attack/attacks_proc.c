// SPDX-License-Identifier: LGPL-2.1-or-later
// rf-attack: processes, environment, descriptors, procfs/sysfs, lifecycle (S-01..S-05, ENV, FD,
// PROC, LIFE, TEN, SOFT).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rf_attack.h"

static char big[1 << 18];

static bool need_canary(void) {
  if (cfg.canary) return true;
  skipped("no canary given (--canary or RF_ATTACK_CANARY)");
  return false;
}

// S-01 / S-02 / ENV-03: search other processes' environ and/or cmdline for the canary.
static void search_proc(const struct attack* a) {
  if (!need_canary()) return;
  const char* files[2] = {NULL, NULL};
  if (a->arg == 0) files[0] = "environ";
  if (a->arg == 1) files[0] = "cmdline";
  if (a->arg == 2) files[0] = "environ", files[1] = "cmdline";
  static int pids[4096];
  int n = visible_pids(pids, 4096), readable = 0, denied = 0, first_err = 0;
  char found[600] = "";
  for (int i = 0; i < n; ++i) {
    if (pids[i] == getpid() || pids[i] == getppid()) continue;  // this attack and rf-attack itself
    for (int f = 0; f < 2 && files[f]; ++f) {
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/%s", pids[i], files[f]);
      ssize_t r = read_file(path, big, sizeof big);
      if (r < 0) {
        ++denied;
        if (!first_err) first_err = errno;
        continue;
      }
      ++readable;
      if (mem_contains(big, (size_t)r, cfg.canary)) {
        char comm[64] = "?", cp[64];
        snprintf(cp, sizeof cp, "/proc/%d/comm", pids[i]);
        if (read_file(cp, comm, sizeof comm) > 0) comm[strcspn(comm, "\n")] = 0;
        size_t l = strlen(found);
        if (l < sizeof found - 100)
          snprintf(found + l, sizeof found - l, "%s%s (%s)", l ? ", " : "", path, comm);
      }
    }
  }
  if (found[0])
    succeeded(0, "canary found in %s", found);
  else
    blocked(first_err, "%d other processes visible, %d files read, %d refused: no canary", n - 1, readable,
            denied);
}

// S-01.launcher: rf-attack's parent, the one process every level runs next to the command (the
// launcher itself at the soft and landlock levels, the sandbox's pid 1 at the kernel level): the
// credentials it dropped from the command's environment must not be in its /proc/PID/environ,
// and its memory (which holds them too) must not open.
static void parent_process(const struct attack* a) {
  (void)a;
  if (!need_canary()) return;
  if (cfg.ppid <= 0) {
    skipped("rf-attack has no parent in this PID namespace");
    return;
  }
  struct acc acc = {0};
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/environ", cfg.ppid);
  ssize_t n = read_file(path, big, sizeof big);
  if (n < 0)
    acc_add(&acc, false, errno, "read %s", path);
  else
    acc_add(&acc, mem_contains(big, (size_t)n, cfg.canary), ENODATA, "the canary in %s (%zd bytes read)",
            path, n);
  snprintf(path, sizeof path, "/proc/%d/mem", cfg.ppid);
  int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
  int e = errno;
  if (fd >= 0) close(fd);
  acc_add(&acc, fd >= 0, e, "open %s", path);
  acc_done(&acc, NULL);
}

// S-03 / TEN-01: another process's root, cwd, fds, map_files.
static void foreign_proc_dirs(const struct attack* a) {
  (void)a;
  static int pids[4096];
  int n = visible_pids(pids, 4096);
  struct acc acc = {0};
  int outside = 0;
  for (int i = 0; i < n; ++i) {
    int pid = pids[i];
    if (!is_outside(pid)) continue;
    ++outside;
    // root and cwd: opening them needs ptrace access. fd and map_files: the directories open by
    // their mode alone; what leaks is an entry's target, so one readlink must work.
    const char* parts[] = {"root", "cwd", "fd", "map_files"};
    for (int k = 0; k < 4; ++k) {
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/%s", pid, parts[k]);
      if (k < 2) {
        int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
        int e = errno;
        if (fd >= 0) close(fd);
        acc_add(&acc, fd >= 0, e, "open %s", path);
        continue;
      }
      DIR* d = opendir(path);
      if (!d) {
        acc_add(&acc, false, errno, "list %s", path);
        continue;
      }
      struct dirent* de;
      int links = 0, err = ENOENT;
      while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char lp[128], target[512];
        snprintf(lp, sizeof lp, "%s/%s", path, de->d_name);
        if (readlink(lp, target, sizeof target) >= 0)
          ++links;
        else
          err = errno;
        if (links) break;
      }
      closedir(d);
      acc_add(&acc, links > 0, err, "readlink %s/*", path);
    }
  }
  if (!outside) {
    blocked(ESRCH, "no process outside the sandbox is visible (%d visible)", n);
    return;
  }
  acc_done(&acc, NULL);
}

// S-04: list the parent of the project (sibling projects).
static void list_workspace(const struct attack* a) {
  (void)a;
  char parent[4096];
  snprintf(parent, sizeof parent, "%s", cfg.project);
  char* slash = strrchr(parent, '/');
  if (!slash || slash == parent) {
    skipped("the project has no parent directory to list");
    return;
  }
  const char* base = slash + 1;
  *slash = 0;
  int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
  if (fd < 0) {
    blocked(errno, "open %s: %s", parent, errname(errno));
    return;
  }
  close(fd);
  DIR* d = opendir(parent);
  if (!d) {
    blocked(errno, "opendir %s", parent);
    return;
  }
  char others[800] = "";
  struct dirent* e;
  int n = 0;
  const char* home = getenv("HOME");  // the sandbox's own (throwaway) HOME may sit next to the project
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, base)) continue;
    char full[4400];
    snprintf(full, sizeof full, "%s/%s", parent, e->d_name);
    if (home && strcmp(full, home) == 0) continue;
    ++n;
    size_t l = strlen(others);
    if (l < sizeof others - 80) snprintf(others + l, sizeof others - l, "%s%s", l ? " " : "", e->d_name);
  }
  closedir(d);
  if (n)
    succeeded(0, "%s lists %d other entries: %s", parent, n, others);
  else
    blocked(0, "%s lists only the project", parent);
}

// S-05 / ENV-04: secret files in the project; arg 1: .git/config (reported, not masked).
static void project_secrets(const struct attack* a) {
  static const char* masked[] = {".env",   ".env.local", ".npmrc",      ".netrc", ".pypirc",
                                 "id_rsa", "server.pem", "private.key", NULL};
  static const char* gitcfg[] = {".git/config", NULL};
  const char** list = a->arg ? gitcfg : masked;
  struct acc acc = {0};
  for (int i = 0; list[i]; ++i) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", cfg.project, list[i]);
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT) continue;
    ssize_t n = read_file(path, big, sizeof big);
    if (n < 0) {
      acc_add(&acc, false, errno, "read %s", list[i]);
      continue;
    }
    bool leak = cfg.canary ? mem_contains(big, (size_t)n, cfg.canary) : n > 0;
    acc_add(&acc, leak, ENODATA, "read %s (%zd bytes)", list[i], n);
    // The same file by another route: an O_PATH descriptor reopened through /proc/self/fd.
    int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)path, O_PATH | O_CLOEXEC, 0, 0, 0);
    if (fd >= 0) {
      char via[64];
      snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
      n = read_file(via, big, sizeof big);
      if (n >= 0) {
        leak = cfg.canary ? mem_contains(big, (size_t)n, cfg.canary) : n > 0;
        acc_add(&acc, leak, ENODATA, "reopen %s via O_PATH", list[i]);
      }
      close(fd);
    }
  }
  acc_done(&acc, "none of the secret files exists in the project");
}

// ENV-01/02/07: credential variables.
static const char* const cred_vars[] = {"AWS_ACCESS_KEY_ID",
                                        "AWS_SECRET_ACCESS_KEY",
                                        "AWS_SESSION_TOKEN",
                                        "GOOGLE_APPLICATION_CREDENTIALS",
                                        "AZURE_CLIENT_SECRET",
                                        "GITHUB_TOKEN",
                                        "GH_TOKEN",
                                        "NPM_TOKEN",
                                        "NODE_AUTH_TOKEN",
                                        "VAULT_TOKEN",
                                        "OPENAI_API_KEY",
                                        "RF_SECRET_API_KEY",
                                        "SSH_AUTH_SOCK",
                                        "DBUS_SESSION_BUS_ADDRESS",
                                        "DISPLAY",
                                        "WAYLAND_DISPLAY",
                                        "KUBECONFIG",
                                        "DOCKER_HOST",
                                        NULL};
static const char* const sneaky_vars[] = {"AWS_CONTAINER_CREDENTIALS_FULL_URI",
                                          "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                                          "AWS_CONTAINER_AUTHORIZATION_TOKEN",
                                          "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
                                          "AWS_WEB_IDENTITY_TOKEN_FILE",
                                          "ACTIONS_ID_TOKEN_REQUEST_URL",
                                          "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
                                          "ACTIONS_RUNTIME_TOKEN",
                                          "CI_JOB_JWT",
                                          "NETRC",
                                          "GIT_ASKPASS",
                                          "GIT_CONFIG_COUNT",
                                          "GIT_CONFIG_KEY_0",
                                          "GIT_CONFIG_VALUE_0",
                                          "BASH_ENV",
                                          "ENV",
                                          "PROMPT_COMMAND",
                                          "LD_PRELOAD",
                                          "LD_LIBRARY_PATH",
                                          NULL};
static const char* const oidc_vars[] = {"ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
                                        "GITHUB_TOKEN", NULL};

static void env_vars(const struct attack* a) {
  const char* const* list = a->arg == 0 ? cred_vars : a->arg == 1 ? sneaky_vars : oidc_vars;
  ssize_t n = read_file("/proc/self/environ", big, sizeof big);
  if (n < 0) {
    skipped("cannot read /proc/self/environ: %s", errname(errno));
    return;
  }
  char hits[900] = "";
  for (ssize_t off = 0; off < n;) {
    const char* var = big + off;
    size_t len = strlen(var);
    for (int i = 0; list[i]; ++i) {
      size_t l = strlen(list[i]);
      if (strncmp(var, list[i], l) == 0 && var[l] == '=') {
        size_t h = strlen(hits);
        if (h < sizeof hits - 80) snprintf(hits + h, sizeof hits - h, "%s%s", h ? " " : "", list[i]);
      }
    }
    if (a->arg == 0 && cfg.canary && strstr(var, cfg.canary)) {
      size_t h = strlen(hits);
      const char* eq = strchr(var, '=');
      if (h < sizeof hits - 80)
        snprintf(hits + h, sizeof hits - h, "%s%.*s(holds the canary)", h ? " " : "",
                 eq ? (int)(eq - var) : 20, var);
    }
    off += (ssize_t)len + 1;
  }
  if (hits[0])
    succeeded(0, "present in the environment: %s", hits);
  else
    blocked(0, "none of %s present",
            a->arg == 0 ? "the credential variables (or the canary)" : "the variables");
}

// FD-01 / NET-16: inherited descriptors.
static void fd_census(const struct attack* a) {
  struct acc acc = {0};
  for (int i = 0; i < cfg.n_inherited; ++i) {
    int fd = cfg.inherited_fds[i];
    char path[64], target[512] = "?";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n > 0) target[n] = 0;
    struct stat st;
    if (fstat(fd, &st) != 0) continue;
    bool sock = S_ISSOCK(st.st_mode);
    if (a->arg == 1 && !sock) continue;
    if (sock) {
      int dom = -1;
      socklen_t l = sizeof dom;
      getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l);
      acc_add(&acc, true, 0, "fd %d: socket family %d (%s)", fd, dom, target);
    } else {
      acc_add(&acc, true, 0, "fd %d: %s", fd, target);
    }
  }
  if (!acc.wins)
    blocked(0, a->arg ? "no socket was inherited" : "no descriptor above 2 was inherited");
  else
    acc_done(&acc, NULL);
}

// FD-03: the working directory.
static void cwd_check(const struct attack* a) {
  (void)a;
  char buf[4096] = "", link[4096] = "";
  long r = rsys(SYS_getcwd, (long)buf, sizeof buf, 0, 0, 0, 0);
  int e = errno;
  ssize_t n = readlink("/proc/self/cwd", link, sizeof link - 1);
  if (n > 0) link[n] = 0;
  if ((r < 0 && e == ENOENT) || strncmp(buf, "(unreachable)", 13) == 0 ||
      strncmp(link, "(unreachable)", 13) == 0)
    succeeded(0, "the working directory is outside the root: getcwd=%s, /proc/self/cwd=%s", buf, link);
  else
    blocked(0, "cwd %s inside the root", buf);
}

// FD-04 (pid 1 and engine helpers) / SOFT-04 (same-uid host processes holding the canary).
static int targets_for(const struct attack* a, int* t, int max) {
  int k = 0;
  if (a->row[0] == 'F' && getpid() != 1) t[k++] = 1;
  int h[64], nh = canary_holders(h, 64);
  for (int i = 0; i < nh && k < max; ++i)
    if (h[i] != 1 && is_outside(h[i])) t[k++] = h[i];
  return k;
}

static long seize_child(void* arg) {
  long pid = (long)arg;
  return rsys(SYS_ptrace, PTRACE_SEIZE, pid, 0, 0, 0, 0);  // the child exits at once: detached
}

static void proc_target(const struct attack* a) {
  int t[64], nt = targets_for(a, t, 64);
  if (!nt) {
    if (a->row[0] == 'S')
      blocked(ESRCH, "no same-uid process outside the sandbox is visible");
    else
      skipped("no target: rf-attack is pid 1 and no engine helper is visible");
    return;
  }
  struct acc acc = {0};
  for (int i = 0; i < nt; ++i) {
    int pid = t[i];
    char path[64];
    switch (a->arg) {
      case 0: {  // ptrace
        struct child_res r = in_child(seize_child, (void*)(long)pid, 1);
        acc_add(&acc, r.ret == 0, r.err, "PTRACE_SEIZE %d", pid);
        break;
      }
      case 1: {  // pidfd_getfd
        int pfd = (int)rsys(SYS_pidfd_open, pid, 0, 0, 0, 0, 0);
        if (pfd < 0) {
          acc_add(&acc, false, errno, "pidfd_open %d", pid);
          break;
        }
        int got = 0, err = 0;
        for (int fd = 0; fd < 64; ++fd) {
          long r = rsys(SYS_pidfd_getfd, pfd, fd, 0, 0, 0, 0);
          if (r >= 0) {
            ++got;
            close((int)r);
          } else if (!err && errno != EBADF) {
            err = errno;
          }
        }
        close(pfd);
        acc_add(&acc, got > 0, err ? err : EBADF, "pidfd_getfd %d (%d fds taken)", pid, got);
        break;
      }
      case 2: {  // process_vm_readv (EFAULT means access was granted)
        char buf[16];
        unsigned long addr = 0x400000;
        snprintf(path, sizeof path, "/proc/%d/maps", pid);
        char maps[256];
        if (read_file(path, maps, sizeof maps) > 0) addr = strtoul(maps, NULL, 16);
        struct iovec l = {buf, sizeof buf}, r = {(void*)addr, sizeof buf};
        long n = rsys(SYS_process_vm_readv, pid, (long)&l, 1, (long)&r, 1, 0);
        int e = errno;
        acc_add(&acc, n > 0 || (n < 0 && e == EFAULT), e, "process_vm_readv %d", pid);
        break;
      }
      case 3: {  // /proc/PID/mem
        snprintf(path, sizeof path, "/proc/%d/mem", pid);
        int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
        int e = errno;
        if (fd >= 0) close(fd);
        acc_add(&acc, fd >= 0, e, "open %s", path);
        break;
      }
      case 4: {  // /proc/PID/environ
        snprintf(path, sizeof path, "/proc/%d/environ", pid);
        ssize_t n = read_file(path, big, sizeof big);
        acc_add(&acc, n > 0, n < 0 ? errno : ENODATA, "read %s", path);
        break;
      }
      case 5: {  // list /proc/PID/fd and reopen regular files and directories
        snprintf(path, sizeof path, "/proc/%d/fd", pid);
        DIR* d = opendir(path);
        if (!d) {
          acc_add(&acc, false, errno, "list %s", path);
          break;
        }
        struct dirent* e;
        int opened = 0, tried = 0, err = 0;
        while ((e = readdir(d))) {
          if (e->d_name[0] == '.') continue;
          char fp[96];
          snprintf(fp, sizeof fp, "%s/%s", path, e->d_name);
          struct stat st;
          if (stat(fp, &st) != 0) {
            if (!err) err = errno;
            ++tried;
            continue;
          }
          if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
          ++tried;
          int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)fp, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0,
                             0, 0);
          if (fd >= 0) {
            ++opened;
            close(fd);
          } else if (!err) {
            err = errno;
          }
        }
        closedir(d);
        acc_add(&acc, opened > 0, err ? err : ENOENT, "reopen %s/* (%d of %d)", path, opened, tried);
        break;
      }
    }
  }
  acc_done(&acc, NULL);
}

// FD-05: the engine binary through /proc/PID/exe, and its directory.
static void exe_write(const struct attack* a) {
  (void)a;
  int t[64], k = 0;
  if (getpid() != 1) t[k++] = 1;
  if (cfg.ppid > 1) t[k++] = cfg.ppid;
  int h[32], nh = canary_holders(h, 32);
  for (int i = 0; i < nh && k < 64; ++i) t[k++] = h[i];
  struct acc acc = {0};
  for (int i = 0; i < k; ++i) {
    char path[64], target[4096];
    snprintf(path, sizeof path, "/proc/%d/exe", t[i]);
    int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CLOEXEC, 0, 0, 0);
    int e = errno;
    if (fd >= 0) close(fd);  // never written
    acc_add(&acc, fd >= 0, e, "open %s for writing", path);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = 0;
    if (strstr(target, " (deleted)") || strncmp(target, "/memfd:", 7) == 0) {
      acc_note(&acc, "%s is %s", path, target);
      continue;
    }
    fd = (int)rsys(SYS_openat, AT_FDCWD, (long)target, O_WRONLY | O_CLOEXEC, 0, 0, 0);
    e = errno;
    if (fd >= 0) close(fd);
    acc_add(&acc, fd >= 0, e, "open %s for writing", target);
    char* slash = strrchr(target, '/');
    if (!slash) continue;
    char marker[4200];
    snprintf(marker, sizeof marker, "%.*s/rf-attack-marker-%s", (int)(slash - target), target, cfg.tag);
    fd = (int)rsys(SYS_openat, AT_FDCWD, (long)marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600, 0, 0);
    e = errno;
    if (fd >= 0) {
      close(fd);
      unlink(marker);
    }
    acc_add(&acc, fd >= 0, e, "create a file next to %s (to rename over it)", target);
  }
  acc_done(&acc, "no other process visible");
}

// PROC-01/02/03/07: open for writing only (never written), except "0" to vm/drop_caches.
static void proc_write(const struct attack* a) {
  static const char* sys[] = {"/proc/sys/kernel/core_pattern",
                              "/proc/sys/net/ipv4/ip_forward",
                              "/proc/sys/vm/drop_caches",
                              "/proc/sys/user/max_user_namespaces",
                              "/proc/sys/kernel/yama/ptrace_scope",
                              "/proc/sys/kernel/modprobe",
                              NULL};
  static const char* sysrq[] = {"/proc/sysrq-trigger", NULL};
  static const char* cg[] = {"/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/cgroup.subtree_control",
                             "/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/memory.max", NULL};
  static const char* sysw[] = {"/sys/kernel/mm/transparent_hugepage/enabled", "/sys/power/state",
                               "/sys/kernel/uevent_helper", NULL};
  const char** list = a->arg == 0 ? sys : a->arg == 1 ? sysrq : a->arg == 2 ? cg : sysw;
  struct acc acc = {0};
  for (int i = 0; list[i]; ++i) {
    int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)list[i], O_WRONLY | O_CLOEXEC, 0, 0, 0);
    int e = errno;
    if (fd < 0 && e == ENOENT) {
      acc_note(&acc, "%s: absent", list[i]);
      continue;
    }
    if (fd >= 0 && strcmp(list[i], "/proc/sys/vm/drop_caches") == 0) {
      long w = rsys(SYS_write, fd, (long)"0\n", 2, 0, 0, 0);
      int we = errno;
      close(fd);
      // EINVAL: the handler rejected the value, after every permission check passed.
      acc_add(&acc, w >= 0 || we == EINVAL, we, "write \"0\" to %s (its handler answers EINVAL when reached)",
              list[i]);
      continue;
    }
    if (fd >= 0) close(fd);
    acc_add(&acc, fd >= 0, e, "open %s for writing", list[i]);
  }
  if (!acc.tries)
    blocked(ENOENT, "%s", acc.text);
  else
    acc_done(&acc, NULL);
}

// MNT-12.private: any entry of /etc that is not for everyone (a file without o+r, a directory
// without o+r or o+x) read or listed anyway: as root, or in the file's group. Symlinks are not
// followed; the walk stops at 16 levels and 50000 entries.
static int etc_walk(const char* dir, int depth, int* budget, struct acc* acc, int* seen) {
  DIR* d = opendir(dir);
  if (!d) return errno;
  struct dirent* de;
  while ((de = readdir(d)) && --*budget > 0) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
    struct stat st;
    if (lstat(p, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) continue;
    bool open_to_all = S_ISDIR(st.st_mode) ? (st.st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH)
                                           : (st.st_mode & S_IROTH) != 0;
    if (open_to_all) {
      if (S_ISDIR(st.st_mode) && depth < 16) etc_walk(p, depth + 1, budget, acc, seen);
      continue;
    }
    ++*seen;
    if (S_ISDIR(st.st_mode)) {
      DIR* sub = opendir(p);
      int n = 0, e = errno;
      if (sub) {
        struct dirent* x;
        while ((x = readdir(sub)))
          if (strcmp(x->d_name, ".") != 0 && strcmp(x->d_name, "..") != 0) ++n;
        closedir(sub);
      }
      if (sub && n > 0)
        acc_add(acc, true, 0, "listed %s (mode %03o, %d entries)", p, st.st_mode & 0777, n);
      else if (acc->tries < 8)
        acc_add(acc, false, sub ? ENODATA : e, "list %s", p);
      continue;
    }
    int fd =
        (int)rsys(SYS_openat, AT_FDCWD, (long)p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0, 0, 0);
    int e = errno;
    char c;
    ssize_t n = fd >= 0 ? read(fd, &c, 1) : -1;
    if (fd >= 0) close(fd);
    if (n > 0)
      acc_add(acc, true, 0, "read %s (mode %03o)", p, st.st_mode & 0777);
    else if (acc->tries < 8)
      acc_add(acc, false, fd < 0 ? e : ENODATA, "read %s", p);
  }
  closedir(d);
  return 0;
}

static void etc_private(const struct attack* a) {
  (void)a;
  struct acc acc = {0};
  int budget = 50000, seen = 0;
  int e = etc_walk("/etc", 0, &budget, &acc, &seen);
  if (e) {
    // /etc itself not listable (the landlock level grants it entry by entry): the directories
    // where root-only keys usually live.
    static const char* roots[] = {
        "/etc/ssl",       "/etc/apt",        "/etc/netplan",  "/etc/ceph",    "/etc/NetworkManager",
        "/etc/security",  "/etc/default",    "/etc/polkit-1", "/etc/ssh",     "/etc/sudoers.d",
        "/etc/wireguard", "/etc/postgresql", "/etc/ipsec.d",  "/etc/libvirt", NULL};
    acc_note(&acc, "/etc not listable (%s)", errname(e));
    for (int i = 0; roots[i]; ++i) etc_walk(roots[i], 1, &budget, &acc, &seen);
  }
  if (!seen) {
    blocked(ENOENT, "no /etc entry visible lacks o+r (covered entries appear as empty, world-readable ones)");
    return;
  }
  acc_note(&acc, "%d entries that are not world-readable", seen);
  acc_done(&acc, NULL);
}

// PROC-03 (reads) / PROC-04 / MNT-12: files that must be absent, empty or unreadable.
static void secret_reads(const struct attack* a) {
  static const char* sysr[] = {
      "/sys/class/dmi/id/product_uuid", "/sys/class/dmi/id/board_serial", "/sys/kernel/debug",
      "/sys/kernel/tracing/trace",      "/sys/kernel/security",           NULL};
  static const char* procr[] = {"/proc/kallsyms",    "/proc/keys",  "/proc/timer_list",
                                "/proc/sched_debug", "/proc/kcore", "/proc/vmallocinfo",
                                "/proc/kmsg",        NULL};
  static const char* etc[] = {"/etc/shadow",
                              "/etc/gshadow",
                              "/etc/ssh/ssh_host_ed25519_key",
                              "/etc/ssh/ssh_host_rsa_key",
                              "/etc/ssh/ssh_host_ecdsa_key",
                              "/etc/sudoers",
                              "/etc/environment",
                              "/var/run/secrets/kubernetes.io/serviceaccount/token",
                              "/run/secrets",
                              "/var/lib/cloud/instance/user-data.txt",
                              "/root/.ssh/id_rsa",
                              "/root/.bash_history",
                              NULL};
  const char** list = a->arg == 0 ? sysr : a->arg == 1 ? procr : etc;
  struct acc acc = {0};
  for (int i = 0; list[i]; ++i) {
    struct stat st;
    if (stat(list[i], &st) != 0) {
      if (errno != ENOENT) acc_add(&acc, false, errno, "stat %s", list[i]);
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      DIR* d = opendir(list[i]);
      int n = 0, e = errno;
      if (d) {
        struct dirent* de;
        while ((de = readdir(d)))
          if (de->d_name[0] != '.') ++n;
        closedir(d);
      }
      acc_add(&acc, d && n > 0, d ? ENODATA : e, "list %s (%d entries)", list[i], n);
      continue;
    }
    if (strcmp(list[i], "/proc/kcore") == 0 || strcmp(list[i], "/proc/kmsg") == 0) {
      int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)list[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0, 0, 0);
      int e = errno;
      if (fd >= 0) close(fd);
      acc_add(&acc, fd >= 0, e, "open %s", list[i]);
      continue;
    }
    ssize_t n = read_file(list[i], big, sizeof big);
    if (n < 0) {
      acc_add(&acc, false, errno, "read %s", list[i]);
      continue;
    }
    bool leak = n > 0;
    if (strcmp(list[i], "/proc/kallsyms") == 0) {  // only real addresses leak
      size_t k = strspn(big, "0");
      leak = n > 0 && k < 16 && big[k] != ' ';
    }
    if (strcmp(list[i], "/proc/keys") == 0) {  // the names of the host's keys (this run's canary)
      char name[160] = "rf-canary";
      if (cfg.canary) snprintf(name, sizeof name, "rf-canary-%s", cfg.canary);
      leak = mem_contains(big, (size_t)n, name);
    }
    acc_add(&acc, leak, ENODATA, "read %s (%zd bytes)", list[i], n);
  }
  acc_done(&acc, "none of the files exists");
}

// PROC-05 (report): host network state.
static void net_state(const struct attack* a) {
  (void)a;
  struct acc acc = {0};
  const char* files[] = {"/proc/net/tcp", "/proc/net/tcp6", "/proc/net/unix", "/proc/net/udp", NULL};
  for (int i = 0; files[i]; ++i) {
    ssize_t n = read_file(files[i], big, sizeof big);
    if (n < 0) {
      acc_add(&acc, false, errno, "%s", files[i]);
      continue;
    }
    int lines = 0;
    for (ssize_t k = 0; k < n; ++k) lines += big[k] == '\n';
    acc_add(&acc, lines > 1, ENODATA, "%s: %d entries", files[i], lines > 0 ? lines - 1 : 0);
  }
  acc_done(&acc, NULL);
}

// LIFE-01: tasks until refused. Threads count as processes for pids.max and RLIMIT_NPROC, and
// cost a small stack each, so the test stays cheap for the host: at most LIFE01_CAP of them
// (above the default bound of 4096 tasks), blocked until the child exits and takes them along.
#define LIFE01_CAP 6000
static void* idle_thread(void* arg) {
  (void)arg;
  for (;;) pause();
  return NULL;
}

static void fork_bomb(const struct attack* a) {
  (void)a;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int n = 0, err = 0;
  for (; n < LIFE01_CAP; ++n) {
    pthread_t t;
    err = pthread_create(&t, &attr, idle_thread, NULL);
    if (err != 0) break;
  }
  struct rlimit rl;
  char nproc[32] = "unknown";
  if (getrlimit(RLIMIT_NPROC, &rl) == 0) {
    if (rl.rlim_cur == RLIM_INFINITY)
      snprintf(nproc, sizeof nproc, "unlimited");
    else
      snprintf(nproc, sizeof nproc, "%llu", (unsigned long long)rl.rlim_cur);
  }
  if (n == LIFE01_CAP)
    succeeded(0, "%d tasks started without a limit (the cap of this test; RLIMIT_NPROC %s)", n, nproc);
  else
    blocked(err, "new tasks refused after %d (RLIMIT_NPROC %s)", n, nproc);
}

// LIFE-05: leave a survivor; the driver checks the host's process table afterwards.
static void survivor(const struct attack* a) {
  (void)a;
  pid_t p = fork();
  if (p == 0) {
    if (fork() == 0) {
      char* argv[] = {"rf-attack", "__survivor", "20", NULL};
      execve("/proc/self/exe", argv, (char**)EMPTY_ENV);
      _exit(127);
    }
    _exit(0);
  }
  waitpid(p, NULL, 0);
  skipped(
      "decided outside: a process 'rf-attack __survivor' (own session, SIGTERM/SIGHUP ignored, no "
      "parent-death signal) must not outlive the sandbox; it exits by itself after 20 s");
}

// LIFE-06 (report): orphans must be reaped.
static void zombies(const struct attack* a) {
  (void)a;
  for (int i = 0; i < 100; ++i) {
    pid_t p = fork();
    if (p == 0) {
      if (fork() == 0) _exit(0);
      _exit(0);
    }
    if (p > 0) waitpid(p, NULL, 0);
  }
  usleep(300000);
  static int pids[4096];
  int n = visible_pids(pids, 4096), z = 0;
  for (int i = 0; i < n; ++i) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pids[i]);
    if (read_file(path, buf, sizeof buf) <= 0) continue;
    char* rp = strrchr(buf, ')');
    if (rp && rp[1] && rp[2] == 'Z') ++z;
  }
  if (z > 20)
    succeeded(0, "%d zombies visible 300 ms after 100 orphans exited", z);
  else
    blocked(0, "%d zombies visible after 100 orphans exited", z);
}

// SOFT-03 / SOFT-06: writes outside the project (markers removed at once).
static void host_writes(const struct attack* a) {
  static char dirs[4][4096];
  int nd = 0;
  if (a->arg == 0) {
    snprintf(dirs[nd++], 4096, "/etc");
    snprintf(dirs[nd++], 4096, "/usr/local/bin");
    snprintf(dirs[nd++], 4096, "/var/lib");
  } else {
    if (!cfg.home_canary) {
      skipped("no --home-canary: the real home is unknown");
      return;
    }
    struct stat st;
    if (stat(cfg.home_canary, &st) != 0) {
      blocked(errno,
              "the real home is not here: its canary file is not visible (%s), so its directory is not the "
              "real one (a throwaway HOME at the same path is writable by design)",
              errname(errno));
      return;
    }
    snprintf(dirs[nd], 4096, "%s", cfg.home_canary);
    char* s = strrchr(dirs[nd], '/');
    if (s) *s = 0;
    ++nd;
  }
  struct acc acc = {0};
  for (int i = 0; i < nd; ++i) {
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/rf-attack-marker-%s", dirs[i], cfg.tag);
    int fd =
        (int)rsys(SYS_openat, AT_FDCWD, (long)marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600, 0, 0);
    int e = errno;
    if (fd >= 0) {
      close(fd);
      unlink(marker);
    }
    acc_add(&acc, fd >= 0, e, "create %s", marker);
  }
  acc_done(&acc, NULL);
}

// The canary file in the real home (read, list).
static void home_read(const struct attack* a) {
  (void)a;
  if (!cfg.home_canary) {
    skipped("no --home-canary given");
    return;
  }
  struct acc acc = {0};
  ssize_t n = read_file(cfg.home_canary, big, sizeof big);
  bool leak = n > 0 && (!cfg.canary || mem_contains(big, (size_t)n, cfg.canary));
  acc_add(&acc, leak, n < 0 ? errno : ENODATA, "read %s", cfg.home_canary);
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", cfg.home_canary);
  char* s = strrchr(dir, '/');
  if (s && s != dir) {
    *s = 0;
    DIR* d = opendir(dir);
    int found = 0, e = errno;
    if (d) {
      struct dirent* de;
      while ((de = readdir(d)))
        if (strcmp(de->d_name, s + 1) == 0) found = 1;
      closedir(d);
    }
    acc_add(&acc, found, d ? ENOENT : e, "list %s for the canary file", dir);
  }
  acc_done(&acc, NULL);
}

void register_proc_attacks(void) {
  add_attack("S-01", "S-01", LV_KL, search_proc, 0, NULL, "read other processes' environ for the canary");
  add_attack("S-01.launcher", "S-01", LV_ALL, parent_process, 0, NULL,
             "the parent's environment (dropped credentials) and memory: /proc/PPID/environ, /proc/PPID/mem");
  add_attack("S-02", "S-02", LV_K, search_proc, 2, NULL,
             "grep the canary across /proc/*/environ and /proc/*/cmdline");
  add_attack("S-03", "S-03", LV_KL, foreign_proc_dirs, 0, NULL,
             "open root, cwd, fd and map_files of processes outside");
  add_attack("S-04", "S-04", LV_KL, list_workspace, 0, NULL, "list the project's parent (sibling projects)");
  add_attack("S-04.home", "S-04", LV_KL, home_read, 0, NULL, "read the canary file in the real home");
  add_attack("S-05", "S-05", LV_K, project_secrets, 0, NULL,
             "read masked secret files in the project (.env, .npmrc, keys)");
  add_attack("ENV-01", "ENV-01", LV_ALL, env_vars, 0, NULL,
             "credential variables (and the canary) in the environment");
  add_attack("ENV-02", "ENV-02", LV_ALL, env_vars, 1, NULL,
             "variables a pattern scrub misses (AWS container, OIDC, LD_PRELOAD, BASH_ENV)");
  add_attack("ENV-03", "ENV-03", LV_K, search_proc, 1, NULL, "the canary in any process's command line");
  add_attack("ENV-04", "ENV-04", LV_NONE, project_secrets, 1, NULL,
             "read the project's .git/config (credentials there are reported, not masked)");
  add_skipped("ENV-05", "ENV-05", "the agent's own credential in its config bind",
              "no agent profile with a credential file in this run");
  add_attack("ENV-07", "ENV-07", LV_ALL, env_vars, 2, NULL,
             "OIDC request token and GITHUB_TOKEN in the environment");
  add_attack("FD-01", "FD-01", LV_ALL, fd_census, 0, NULL, "descriptors inherited above 2");
  add_attack("NET-16", "NET-16", LV_ALL, fd_census, 1, NULL, "inherited sockets that are already connected");
  add_attack("FD-03", "FD-03", LV_ALL, cwd_check, 0, NULL, "working directory outside the root");
  add_attack("FD-04.ptrace", "FD-04", LV_KL, proc_target, 0, NULL, "PTRACE_SEIZE pid 1 and engine helpers");
  add_attack("FD-04.pidfd_getfd", "FD-04", LV_KL, proc_target, 1, NULL, "pidfd_getfd of pid 1's descriptors");
  add_attack("FD-04.vm_readv", "FD-04", LV_KL, proc_target, 2, NULL, "process_vm_readv of pid 1");
  add_attack("FD-04.mem", "FD-04", LV_KL, proc_target, 3, NULL, "open /proc/1/mem");
  add_attack("FD-04.environ", "FD-04", LV_KL, proc_target, 4, NULL, "read /proc/1/environ");
  add_attack("FD-04.fd_reopen", "FD-04", LV_KL, proc_target, 5, NULL, "reopen /proc/1/fd/N");
  add_attack("FD-05", "FD-05", LV_KL, exe_write, 0, NULL,
             "write the engine binary through /proc/PID/exe, or next to it");
  add_skipped("FD-07", "FD-07", "descriptors smuggled through brokers",
              "ringfence runs no broker (agent bridge, MCP relay, D-Bus proxy)");
  add_attack("PROC-01", "PROC-01", LV_KL, proc_write, 0, NULL,
             "write under /proc/sys (core_pattern, drop_caches, ...)");
  add_attack("PROC-02", "PROC-02", LV_KL, proc_write, 1, NULL, "open /proc/sysrq-trigger for writing");
  add_attack("PROC-03.read", "PROC-03", LV_KL, secret_reads, 0, NULL,
             "read DMI ids, debugfs, tracefs under /sys");
  add_attack("PROC-03.write", "PROC-03", LV_KL, proc_write, 3, NULL, "open /sys files for writing");
  add_attack("PROC-04", "PROC-04", LV_K, secret_reads, 1, NULL,
             "read kallsyms addresses, keys, timer_list, sched_debug, kcore");
  add_attack("PROC-05", "PROC-05", LV_NONE, net_state, 0, NULL,
             "host network state in /proc/net (a known leak of network on)");
  add_skipped("PROC-06", "PROC-06", "cgroup v1 release_agent",
              "stopped earlier: covered by SC-05.unshare.* and MNT-03.mount (no namespace, no mount)");
  add_attack("PROC-07", "PROC-07", LV_KL, proc_write, 2, NULL, "open cgroup.procs and limits for writing");
  add_attack("MNT-12", "MNT-12", LV_KL, secret_reads, 2, NULL,
             "secrets in system directories (/etc/shadow, host keys, k8s token)");
  add_attack("MNT-12.private", "MNT-12", LV_KL, etc_private, 0, NULL,
             "read /etc entries that are not world-readable (as root, or through a group)");
  add_attack("LIFE-01", "LIFE-01", LV_K, fork_bomb, 0, NULL, "start tasks until refused (capped at 6000)");
  add_skipped("LIFE-02", "LIFE-02", "memory exhaustion",
              "not attempted: it would pressure the host; limits need a delegated cgroup");
  add_skipped("LIFE-03", "LIFE-03", "per-user host-wide counters",
              "not attempted: exhausting them would hurt the host's user");
  add_skipped("LIFE-04", "LIFE-04", "the sandbox dies with its supervisor",
              "decided outside: the driver kills the supervisor (tests/integration)");
  add_attack("LIFE-05", "LIFE-05", LV_ALL, survivor, 0, NULL, "a process that tries to outlive the session");
  add_attack("LIFE-06", "LIFE-06", LV_NONE, zombies, 0, NULL, "orphans that exit must be reaped");
  add_skipped("LIFE-07", "LIFE-07", "exit status propagation",
              "decided outside: tests/integration check the exit codes");
  add_skipped("LIFE-08", "LIFE-08", "surviving a timeout", "decided outside: needs the driver's --timeout");
  add_skipped("LIFE-10", "LIFE-10", "filling the host disk through the project",
              "not attempted: documented, would fill the host disk");
  add_attack("SOFT-03", "SOFT-03", LV_KL, host_writes, 0, NULL,
             "create files in /etc, /usr/local/bin, /var/lib");
  add_attack("SOFT-04.mem", "SOFT-04", LV_KL, proc_target, 3, NULL,
             "open /proc/PID/mem of same-uid host processes");
  add_attack("SOFT-04.environ", "SOFT-04", LV_KL, proc_target, 4, NULL,
             "read /proc/PID/environ of same-uid host processes");
  add_attack("SOFT-04.vm_readv", "SOFT-04", LV_KL, proc_target, 2, NULL,
             "process_vm_readv of same-uid host processes");
  add_attack("SOFT-04.ptrace", "SOFT-04", LV_KL, proc_target, 0, NULL,
             "PTRACE_SEIZE same-uid host processes");
  add_attack("SOFT-06", "SOFT-06", LV_KL, host_writes, 1, NULL,
             "create a file in the real home (dotfile persistence)");
  add_skipped("SOFT-01", "SOFT-01", "silent degradation",
              "decided outside: the driver checks the level line and the listed classes");
  add_attack("TEN-01", "TEN-01", LV_KL, foreign_proc_dirs, 1, NULL,
             "another tenant's /proc entries (root, cwd, fd, map_files)");
  add_skipped("TEN-02", "TEN-02", "tenants sharing one uid",
              "covered by IPC-01 (abstract sockets), FD-04 and SOFT-04 (same-uid processes)");
  add_skipped("TEN-03", "TEN-03", "poisoned shared caches", "no shared cache is bound into this sandbox");
}
