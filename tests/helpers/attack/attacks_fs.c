// SPDX-License-Identifier: LGPL-2.1-or-later
// rf-attack: mounts, filesystem, terminals, persistence (MNT, TTY, PER).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "rf_attack.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

static char big[1 << 18];

static bool guard_host(void) {
  if (!caps_dangerous_on_host()) return false;
  succeeded(0,
            "not attempted: this process holds CAP_SYS_ADMIN in the initial user namespace, so the call "
            "would change the host");
  return true;
}

// Mount points from /proc/self/mountinfo, deepest (last mounted) first.
static int mount_points(char pts[][512], int max) {
  ssize_t n = read_file("/proc/self/mountinfo", big, sizeof big);
  if (n <= 0) return 0;
  int k = 0;
  char* save = NULL;
  for (char* line = strtok_r(big, "\n", &save); line && k < max; line = strtok_r(NULL, "\n", &save)) {
    char mp[512];
    if (sscanf(line, "%*s %*s %*s %*s %511s", mp) == 1) snprintf(pts[k++], 512, "%s", mp);
  }
  for (int i = 0; i < k / 2; ++i) {
    char t[512];
    memcpy(t, pts[i], 512);
    memcpy(pts[i], pts[k - 1 - i], 512);
    memcpy(pts[k - 1 - i], t, 512);
  }
  return k;
}

// MNT-01: unmount masks and overmounts (raw, and through the i386 and x32 ABIs).
static long umount_i386(void* p) {
  char* low = low_page();
  if (!low) return -1;
  snprintf(low, 4096, "%s", (const char*)p);
  long r = i386_call(52, (long)low, MNT_DETACH, 0, 0, 0, 0);
  if (r < 0) errno = (int)-r;
  return r < 0 ? -1 : r;
}
static long umount_x32(void* p) { return syscall(SYS_umount2 | X32_BIT, (long)p, MNT_DETACH); }

static void unmount_masks(const struct attack* a) {
  if ((a->arg == 1 && cfg.i386 == 0) || (a->arg == 2 && cfg.x32 == 0)) {
    skipped(a->arg == 1 ? "no i386 ABI: int $0x80 faults on this kernel"
                        : "no x32 ABI in this kernel (x32 getpid: ENOSYS)");
    return;
  }
  if (guard_host()) return;
  static char pts[256][512];
  int n = mount_points(pts, 256);
  struct acc acc = {0};
  int tried = 0;
  for (int i = 0; i < n && tried < 40; ++i) {
    if (strcmp(pts[i], "/") == 0) continue;
    ++tried;
    if (a->arg == 0) {
      long r = rsys(SYS_umount2, (long)pts[i], MNT_DETACH, 0, 0, 0, 0);
      int e = errno;
      acc_add(&acc, r == 0, e, "umount2(%s, MNT_DETACH)", pts[i]);
      if (r == 0) break;
    } else {
      struct child_res r = in_child(a->arg == 1 ? umount_i386 : umount_x32, pts[i], 1);
      if (WIFSIGNALED(r.status)) {
        acc_add(&acc, false, 0, "umount2(%s) killed by %s", pts[i], signame_of(WTERMSIG(r.status)));
        break;
      }
      acc_add(&acc, r.ret == 0, r.err, "umount2(%s)", pts[i]);
      if (r.ret == 0) break;
    }
  }
  acc_done(&acc, "no mount to try");
}

// MNT-02: remount read-only binds writable.
static void remount_rw(const struct attack* a) {
  (void)a;
  if (guard_host()) return;
  struct acc acc = {0};
  const char* targets[] = {"/usr", "/etc", NULL, NULL};
  char git[4200];
  snprintf(git, sizeof git, "%s/.git/config", cfg.project);
  targets[2] = git;
  for (int i = 0; targets[i]; ++i) {
    long r = rsys(SYS_mount, 0, (long)targets[i], 0, MS_REMOUNT | MS_BIND, 0, 0);
    acc_add(&acc, r == 0, errno, "mount(MS_REMOUNT|MS_BIND, rw) %s", targets[i]);
    struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
    r = rsys(SYS_mount_setattr, AT_FDCWD, (long)targets[i], AT_RECURSIVE, (long)&attr, sizeof attr, 0);
    acc_add(&acc, r == 0, errno, "mount_setattr(%s, clear RDONLY|NOSUID|NODEV)", targets[i]);
  }
  acc_done(&acc, NULL);
}

// MNT-03: the new mount API and other VFS-changing calls, one variant each.
static long chroot_child(void* p) {
  (void)p;
  return rsys(SYS_chroot, (long)".", 0, 0, 0, 0, 0);
}
static void vfs_call(const struct attack* a) {
  if (a->arg != 6 && guard_host()) return;
  long r = -1;
  switch (a->arg) {
    case 0: r = rsys(SYS_fsopen, (long)"tmpfs", 0, 0, 0, 0, 0); break;
    case 1: r = rsys(SYS_open_tree, AT_FDCWD, (long)"/", OPEN_TREE_CLONE | AT_RECURSIVE, 0, 0, 0); break;
    case 2: r = rsys(SYS_fspick, AT_FDCWD, (long)"/", 0, 0, 0, 0); break;
    case 3:
      r = rsys(SYS_move_mount, AT_FDCWD, (long)"/nonexistent-rf-a", AT_FDCWD, (long)"/nonexistent-rf-b", 0,
               0);
      break;
    case 4: r = rsys(SYS_fsmount, -1, 0, 0, 0, 0, 0); break;
    case 5: r = rsys(SYS_pivot_root, (long)"/nonexistent-rf", (long)"/nonexistent-rf", 0, 0, 0, 0); break;
    case 6: {
      struct child_res c = in_child(chroot_child, NULL, 1);
      r = c.ret;
      errno = c.err;
      break;
    }
    case 7: r = rsys(SYS_mount, (long)"none", (long)"/nonexistent-rf", (long)"tmpfs", 0, 0, 0); break;
  }
  int e = errno;
  if (r >= 0) {
    if (a->arg <= 2 || a->arg == 4) close((int)r);
    succeeded(0, "the call worked (%ld)", r);
  } else if (a->arg == 4 && e == EBADF) {
    succeeded(e, "fsmount reached the kernel (EBADF for fd -1): not refused by the filter");
  } else if ((a->arg == 3 || a->arg == 5 || a->arg == 7) && e == ENOENT) {
    succeeded(e, "the call reached path lookup (ENOENT): not refused by the filter or by missing privileges");
  } else {
    blocked(e, "%s", errname(e));
  }
}

// MNT-04: the old root.
static void old_root(const struct attack* a) {
  (void)a;
  struct stat r1, r2;
  stat("/", &r1);
  stat("/..", &r2);
  struct acc acc = {0};
  acc_add(&acc, r1.st_ino != r2.st_ino || r1.st_dev != r2.st_dev, EPERM, "'..' of / leads elsewhere");
  ssize_t n = read_file("/proc/self/mountinfo", big, sizeof big);
  bool old = n > 0 && (strstr(big, "oldroot") || strstr(big, "put_old") || strstr(big, ".pivot"));
  acc_add(&acc, old, EPERM, "a put-old mount in mountinfo");
  struct stat p1;
  if (stat("/proc/1/root/.", &p1) == 0)
    acc_add(&acc, p1.st_ino != r1.st_ino || p1.st_dev != r1.st_dev, EPERM, "/proc/1/root differs from /");
  struct statfs sf;
  statfs("/", &sf);
  acc_add(&acc, sf.f_type != 0x01021994 /* TMPFS_MAGIC */, EPERM,
          "/ is the host's root (not a fresh tmpfs: type 0x%lx)", (long)sf.f_type);
  acc_done(&acc, NULL);
}

// MNT-05: symlinks in the project pointing outside.
static void symlink_out(const struct attack* a) {
  (void)a;
  struct acc acc = {0};
  const char* targets[] = {cfg.home_canary, "../../../../../../../../etc/shadow", NULL};
  for (int i = 0; i < 2; ++i) {
    if (!targets[i]) continue;
    char link[4200];
    snprintf(link, sizeof link, "%s/rf-attack-link%d-%s", cfg.project, i, cfg.tag);
    unlink(link);
    if (rsys(SYS_symlinkat, (long)targets[i], AT_FDCWD, (long)link, 0, 0, 0) != 0) {
      acc_note(&acc, "symlink in the project: %s", errname(errno));
      continue;
    }
    ssize_t n = read_file(link, big, sizeof big);
    int e = errno;
    unlink(link);
    bool leak = n > 0 && (i == 1 || !cfg.canary || mem_contains(big, (size_t)n, cfg.canary));
    acc_add(&acc, leak, n < 0 ? e : ENODATA, "read through a link to %s (%zd bytes)", targets[i], n);
  }
  acc_done(&acc, "no link could be made in the project");
}

// MNT-08: hard links from outside into the project.
static void hardlink_out(const struct attack* a) {
  (void)a;
  struct acc acc = {0};
  const char* srcs[] = {"/etc/passwd", "/usr/bin/passwd", cfg.home_canary, NULL};
  for (int i = 0; i < 3; ++i) {
    if (!srcs[i]) continue;
    char dst[4200];
    snprintf(dst, sizeof dst, "%s/rf-attack-hl%d-%s", cfg.project, i, cfg.tag);
    long r = rsys(SYS_linkat, AT_FDCWD, (long)srcs[i], AT_FDCWD, (long)dst, 0, 0);
    int e = errno;
    if (r == 0) unlink(dst);
    acc_add(&acc, r == 0, e, "link %s into the project", srcs[i]);
  }
  acc_done(&acc, NULL);
}

// MNT-09: device nodes (opened read-only and non-blocking, never read or written) and mknod.
static void devices(const struct attack* a) {
  (void)a;
  static const char* devs[] = {
      "/dev/kmsg",    "/dev/mem",       "/dev/kmem",        "/dev/port",        "/dev/kvm", "/dev/fuse",
      "/dev/net/tun", "/dev/vsock",     "/dev/vhost-vsock", "/dev/userfaultfd", "/dev/vda", "/dev/sda",
      "/dev/nvme0n1", "/dev/dri/card0", "/dev/tty0",        "/dev/console",     "/dev/vcs", NULL};
  struct acc acc = {0};
  for (int i = 0; devs[i]; ++i) {
    int fd =
        (int)rsys(SYS_openat, AT_FDCWD, (long)devs[i], O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0, 0, 0);
    int e = errno;
    if (fd < 0 && e == ENOENT) continue;
    if (fd >= 0) close(fd);
    acc_add(&acc, fd >= 0, e, "open %s", devs[i]);
  }
  char node[4200];
  snprintf(node, sizeof node, "%s/rf-attack-node-%s", cfg.project, cfg.tag);
  long r = rsys(SYS_mknodat, AT_FDCWD, (long)node, S_IFCHR | 0600, (long)makedev(1, 3), 0, 0);
  int e = errno;
  if (r == 0) unlink(node);
  acc_add(&acc, r == 0, e, "mknod c 1 3 in the project");
  acc_done(&acc, NULL);
}

// MNT-10: every writable tmpfs has a size.
static void tmpfs_sizes(const struct attack* a) {
  (void)a;
  ssize_t n = read_file("/proc/self/mountinfo", big, sizeof big);
  if (n <= 0) {
    skipped("cannot read mountinfo");
    return;
  }
  struct acc acc = {0};
  char* save = NULL;
  for (char* line = strtok_r(big, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char mp[512], opts[256], fstype[64], super[512];
    if (sscanf(line, "%*s %*s %*s %*s %511s %255s", mp, opts) != 2) continue;
    char* dash = strstr(line, " - ");
    if (!dash || sscanf(dash + 3, "%63s %*s %511s", fstype, super) != 2) continue;
    if (strcmp(fstype, "tmpfs") || strncmp(opts, "rw", 2)) continue;
    acc_add(&acc, !strstr(super, "size="), ENOSPC, "%s (%s)", mp,
            strstr(super, "size=") ? "sized" : "no size=");
  }
  acc_done(&acc, "no writable tmpfs");
}

// MNT-11 (report): host paths in mountinfo.
static void mountinfo_paths(const struct attack* a) {
  (void)a;
  ssize_t n = read_file("/proc/self/mountinfo", big, sizeof big);
  if (n <= 0) {
    skipped("cannot read mountinfo");
    return;
  }
  const char* hints[] = {"/home/", "/root", "/tmp/ringfence", NULL};
  struct acc acc = {0};
  for (int i = 0; hints[i]; ++i)
    acc_add(&acc, strstr(big, hints[i]) != NULL, ENOENT, "'%s' in mountinfo", hints[i]);
  acc_done(&acc, NULL);
}

// TTY: a terminal among fds 0-2, else /dev/tty.
static int find_tty(char* what, size_t cap) {
  for (int fd = 0; fd < 3; ++fd)
    if (isatty(fd)) {
      snprintf(what, cap, "fd %d", fd);
      return fd;
    }
  int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)"/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC, 0, 0, 0);
  if (fd >= 0) {
    snprintf(what, cap, "/dev/tty");
    return fd;
  }
  return -1;
}

static long tiocsti_i386(void* p) {
  long fd = (long)p;
  char* low = low_page();
  if (!low) return -1;
  low[0] = '#';
  long r = i386_call(54, fd, TIOCSTI, (long)low, 0, 0, 0);
  if (r < 0) errno = (int)-r;
  return r < 0 ? -1 : r;
}

// TTY-01/02: TIOCSTI (arg 0 plain, 1 junk in the upper 32 bits, 2 i386). Injects "#rf-tiocsti" (a
// shell comment) only as long as the calls succeed.
static void tiocsti(const struct attack* a) {
  if (a->arg == 2 && cfg.i386 == 0) {
    skipped("no i386 ABI: int $0x80 faults on this kernel");
    return;
  }
  char what[32];
  int fd = find_tty(what, sizeof what);
  if (fd < 0) {
    skipped("no terminal: fds 0-2 are not terminals and /dev/tty has none");
    return;
  }
  if (a->arg == 2) {
    struct child_res r = in_child(tiocsti_i386, (void*)(long)fd, 1);
    if (WIFSIGNALED(r.status))
      blocked(0, "killed by %s", signame_of(WTERMSIG(r.status)));
    else if (r.ret == 0)
      succeeded(0, "i386 ioctl(%s, TIOCSTI) injected a byte", what);
    else
      blocked(r.err, "i386 ioctl(%s, TIOCSTI): %s", what, errname(r.err));
    return;
  }
  const char* text = "#rf-tiocsti";
  unsigned long cmd = TIOCSTI;
  if (a->arg == 1) cmd |= 1UL << 32;
  int injected = 0, err = 0;
  for (const char* c = text; *c; ++c) {
    long r = rsys(SYS_ioctl, fd, (long)cmd, (long)c, 0, 0, 0);
    if (r != 0) {
      err = errno;
      break;
    }
    ++injected;
  }
  if (injected)
    succeeded(0, "ioctl(%s, TIOCSTI%s) injected %d bytes into the terminal's input", what,
              a->arg ? " | 1<<32" : "", injected);
  else
    blocked(err, "ioctl(%s, TIOCSTI%s): %s", what, a->arg ? " | 1<<32" : "", errname(err));
}

// TTY-03: TIOCLINUX (subcode 6, read the shift state: harmless when it works).
static void tioclinux(const struct attack* a) {
  (void)a;
  char what[32];
  int fd = find_tty(what, sizeof what);
  if (fd < 0) fd = 0, snprintf(what, sizeof what, "fd 0 (not a terminal)");
  char sub[2] = {6, 0};
  long r = rsys(SYS_ioctl, fd, TIOCLINUX, (long)sub, 0, 0, 0);
  int e = errno;
  if (r == 0)
    succeeded(0, "ioctl(%s, TIOCLINUX) worked", what);
  else
    blocked(e, "ioctl(%s, TIOCLINUX): %s%s", what, errname(e),
            e == EPERM ? "" : " (refused by the tty layer)");
}

// TTY-04: other terminals in /dev/pts.
static void pts_census(const struct attack* a) {
  (void)a;
  struct stat mine[3];
  for (int fd = 0; fd < 3; ++fd)
    if (fstat(fd, &mine[fd]) != 0) memset(&mine[fd], 0, sizeof mine[fd]);
  struct acc acc = {0};
  int seen = 0;
  DIR* d = opendir("/dev/pts");
  if (d) {
    struct dirent* e;
    while ((e = readdir(d)))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') ++seen;
    closedir(d);
  }
  acc_note(&acc, "/dev/pts lists %d terminals", seen);
  for (int n = 0; n < 64; ++n) {
    char path[32];
    snprintf(path, sizeof path, "/dev/pts/%d", n);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    bool own = false;
    for (int fd = 0; fd < 3; ++fd) own |= S_ISCHR(mine[fd].st_mode) && st.st_rdev == mine[fd].st_rdev;
    if (own) continue;
    int fd = (int)rsys(SYS_openat, AT_FDCWD, (long)path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0, 0, 0);
    int e = errno;
    if (fd >= 0) close(fd);
    acc_add(&acc, fd >= 0, e, "open %s", path);
  }
  if (!acc.tries)
    blocked(ENOENT, "%s; no other terminal to open", acc.text);
  else
    acc_done(&acc, NULL);
}

// PER-01: git hooks and config that the host runs later. PER-02 (report): other auto-run files.
static void git_persist(const struct attack* a) {
  char git[4200];
  snprintf(git, sizeof git, "%s/.git", cfg.project);
  struct stat st;
  if (a->arg != 1 && (stat(git, &st) != 0 || !S_ISDIR(st.st_mode))) {
    skipped("the project has no .git directory");
    return;
  }
  struct acc acc = {0};
  const char* tok = cfg.tag;
  char path[4400], path2[4400];
  if (a->arg == 0) {
    snprintf(path, sizeof path, "%s/hooks/pre-commit-rf-attack-%s", git, tok);
    long fd = rsys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755, 0, 0);
    int e = errno;
    if (fd >= 0) close((int)fd), unlink(path);
    acc_add(&acc, fd >= 0, e, "create a hook in .git/hooks");
    snprintf(path, sizeof path, "%s/config", git);
    fd = rsys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_APPEND | O_CLOEXEC, 0, 0, 0);
    e = errno;
    if (fd >= 0) close((int)fd);
    acc_add(&acc, fd >= 0, e, "open .git/config for writing");
    snprintf(path2, sizeof path2, "%s/config.rf-attack-%s", git, tok);
    long r = rsys(SYS_renameat2, AT_FDCWD, (long)path, AT_FDCWD, (long)path2, RENAME_NOREPLACE, 0);
    e = errno;
    if (r == 0) rsys(SYS_renameat2, AT_FDCWD, (long)path2, AT_FDCWD, (long)path, 0, 0);
    acc_add(&acc, r == 0, e, "rename .git/config away (to replace it)");
    snprintf(path, sizeof path, "%s/hooks", git);
    snprintf(path2, sizeof path2, "%s/hooks.rf-attack-%s", git, tok);
    r = rsys(SYS_renameat2, AT_FDCWD, (long)path, AT_FDCWD, (long)path2, RENAME_NOREPLACE, 0);
    e = errno;
    if (r == 0) rsys(SYS_renameat2, AT_FDCWD, (long)path2, AT_FDCWD, (long)path, 0, 0);
    acc_add(&acc, r == 0, e, "rename .git/hooks away (to replace it)");
  } else if (a->arg == 2) {
    // The rest of what git runs code from, and .git itself replaced by another repository.
    const char* made[] = {"info/attributes", "modules/rf-attack-%s", "worktrees/rf-attack-%s", NULL};
    const int dirs[] = {0, 1, 1};
    for (int i = 0; made[i]; ++i) {
      char rel[200];
      snprintf(rel, sizeof rel, made[i], tok);
      snprintf(path, sizeof path, "%s/%s", git, rel);
      int existed = access(path, F_OK) == 0;
      long r = dirs[i] ? rsys(SYS_mkdirat, AT_FDCWD, (long)path, 0755, 0, 0, 0)
                       : rsys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                              0644, 0, 0);
      int e = errno;
      if (r >= 0 && !dirs[i]) close((int)r);
      if (r >= 0 && dirs[i]) rmdir(path);
      if (r >= 0 && !dirs[i] && !existed) unlink(path);
      acc_add(&acc, r >= 0, e, dirs[i] ? "make .git/%s" : "open .git/%s for writing", rel);
    }
    snprintf(path2, sizeof path2, "%s.rf-attack-%s", git, tok);
    long r = rsys(SYS_renameat2, AT_FDCWD, (long)git, AT_FDCWD, (long)path2, RENAME_NOREPLACE, 0);
    int e = errno;
    if (r == 0) rsys(SYS_renameat2, AT_FDCWD, (long)path2, AT_FDCWD, (long)git, 0, 0);
    acc_add(&acc, r == 0, e, "rename .git away (to put another repository in its place)");
  } else if (a->arg == 3) {
    snprintf(path, sizeof path, "%s/commondir", git);
    long fd = rsys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644, 0, 0);
    int e = errno;
    if (fd >= 0) close((int)fd), unlink(path);
    acc_add(&acc, fd >= 0, e, "make .git/commondir (points git at another directory and config)");
  } else {
    const char* files[] = {".envrc", ".vscode-tasks.json", ".pre-commit-config.yaml", NULL};
    for (int i = 0; files[i]; ++i) {
      snprintf(path, sizeof path, "%s/%s-rf-attack-%s", cfg.project, files[i], tok);
      long fd = rsys(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644, 0, 0);
      int e = errno;
      if (fd >= 0) close((int)fd), unlink(path);
      acc_add(&acc, fd >= 0, e, "create %s in the project", files[i]);
    }
  }
  acc_done(&acc, NULL);
}

// PRIV-04: a set-user-ID or set-group-ID file made in the project stays so on the host, where the
// next user runs it as its owner. The file is empty and not executable, and removed at once.
struct setid_try {
  long nr;  // x86_64 number; i386 numbers below
  long a[4];
  bool i386;
};
static long setid_call(void* p) {
  const struct setid_try* t = p;
  if (!t->i386) return rsys(t->nr, t->a[0], t->a[1], t->a[2], t->a[3], 0, 0);
  long r = i386_call(t->nr, t->a[0], t->a[1], t->a[2], t->a[3], 0, 0);
  if (r < 0 && r > -4096) {
    errno = (int)-r;
    return -1;
  }
  return r;
}
static void setid_one(struct acc* acc, const char* path, const struct setid_try* t, const char* what) {
  chmod(path, 0644);
  struct child_res r = in_child(setid_call, (void*)t, 1);
  struct stat st;
  bool marked = stat(path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID));
  if (WIFSIGNALED(r.status)) {
    acc_add(acc, marked, 0, "%s: killed by %s", what, signame_of(WTERMSIG(r.status)));
    return;
  }
  acc_add(acc, marked, r.ret < 0 ? r.err : 0, "%s", what);
}
static void setid_project(const struct attack* a) {
  const bool i386 = a->arg == 1;
  if (i386 && cfg.i386 == 0) {
    skipped("no i386 ABI: int $0x80 faults on this kernel");
    return;
  }
  char path[4400], made[4400];
  snprintf(path, sizeof path, "%s/rf-attack-setid-%s", cfg.project, cfg.tag);
  snprintf(made, sizeof made, "%s/rf-attack-setid-new-%s", cfg.project, cfg.tag);
  unlink(path);
  unlink(made);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    skipped("cannot create a file in the project: %s", errname(errno));
    return;
  }
  char* name = path;
  if (i386) {
    name = low_page();
    if (!name) {
      close(fd);
      unlink(path);
      skipped("no memory below 4 GiB for the i386 path");
      return;
    }
    snprintf(name, 4096, "%s", path);
  }
  struct acc acc = {0};
  const long p = (long)name;
  struct setid_try t[] = {
      {i386 ? 15 : SYS_chmod, {p, 04644}, i386},   {i386 ? 15 : SYS_chmod, {p, 02644}, i386},
      {i386 ? 94 : SYS_fchmod, {fd, 04644}, i386}, {i386 ? 306 : SYS_fchmodat, {AT_FDCWD, p, 06644}, i386},
      {452, {AT_FDCWD, p, 04644, 0}, i386},  // fchmodat2: the same number in both ABIs
  };
  const char* what[] = {"chmod u+s", "chmod g+s", "fchmod u+s", "fchmodat u+s,g+s", "fchmodat2 u+s"};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) setid_one(&acc, path, &t[i], what[i]);
  close(fd);
  unlink(path);
  // a new file created with the bits
  long q = (long)made;
  if (i386) {
    snprintf(name, 4096, "%s", made);
    q = (long)name;
  }
  struct setid_try c = {
      i386 ? 295 : SYS_openat, {AT_FDCWD, q, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 04644}, i386};
  struct child_res r = in_child(setid_call, &c, 1);
  struct stat st;
  bool marked = stat(made, &st) == 0 && (st.st_mode & S_ISUID);
  acc_add(&acc, marked, r.ret < 0 ? r.err : 0, "openat O_CREAT mode 04644");
  unlink(made);
  acc_done(&acc, NULL);
}

void register_fs_attacks(void) {
  add_attack("MNT-01", "MNT-01", LV_ALL, unmount_masks, 0, NULL,
             "unmount masks and read-only binds (umount2)");
  add_attack("MNT-01.i386", "MNT-01", LV_ALL, unmount_masks, 1, NULL, "umount2 through int $0x80");
  add_attack("MNT-01.x32", "MNT-01", LV_ALL, unmount_masks, 2, NULL, "umount2 through the x32 ABI");
  add_attack("MNT-02", "MNT-02", LV_ALL, remount_rw, 0, NULL,
             "remount read-only binds writable (mount, mount_setattr)");
  static const char* vfs[] = {"fsopen",  "open_tree",  "fspick", "move_mount",
                              "fsmount", "pivot_root", "chroot", "mount"};
  for (int i = 0; i < 8; ++i) {
    char id[32];
    snprintf(id, sizeof id, "MNT-03.%s", vfs[i]);
    add_attack(id, "MNT-03", LV_ALL, vfs_call, i, NULL, "%s (the mount API and VFS-changing calls)", vfs[i]);
  }
  add_attack("MNT-04", "MNT-04", LV_K, old_root, 0, NULL, "the old root after pivot_root");
  add_attack("MNT-05", "MNT-05", LV_KL, symlink_out, 0, NULL,
             "symlinks in the project to the real home and /etc/shadow");
  add_skipped("MNT-06", "MNT-06", "mount targets swapped for symlinks during setup",
              "decided outside: needs a racer while the engine starts (security-project-binds "
              "swaps .git/hooks for a link while sandboxes start)");
  add_attack("MNT-08", "MNT-08", LV_KL, hardlink_out, 0, NULL, "hard links from outside into the project");
  add_attack("MNT-09", "MNT-09", LV_KL, devices, 0, NULL,
             "device nodes (kmsg, mem, kvm, tun, vsock, disks) and mknod");
  add_attack("MNT-10", "MNT-10", LV_K, tmpfs_sizes, 0, NULL, "writable tmpfs without a size limit");
  add_attack("MNT-11", "MNT-11", LV_NONE, mountinfo_paths, 0, NULL, "host paths in mountinfo (report)");
  add_attack("TTY-01", "TTY-01", LV_ALL, tiocsti, 0, NULL, "TIOCSTI input injection into the terminal");
  add_attack("TTY-02", "TTY-02", LV_ALL, tiocsti, 1, NULL,
             "TIOCSTI with junk in the upper 32 bits of the command");
  add_attack("TTY-02.i386", "TTY-02", LV_ALL, tiocsti, 2, NULL, "TIOCSTI through int $0x80");
  add_attack("TTY-03", "TTY-03", LV_ALL, tioclinux, 0, NULL, "TIOCLINUX on the terminal");
  add_attack("TTY-04", "TTY-04", LV_KL, pts_census, 0, NULL, "open the user's other terminals in /dev/pts");
  add_skipped(
      "TTY-05", "TTY-05", "job-control and controlling-terminal tricks",
      "not attempted: stealing or hanging up the terminal would hurt the caller's session if it worked; "
      "TIOCSTI/TIOCLINUX/vhangup are covered by TTY-01..03 and SC-10.vhangup");
  add_skipped("TTY-06", "TTY-06", "escape sequences rendered by the user's terminal",
              "host-side rendering, not attackable from inside");
  add_attack("PRIV-04.setid", "PRIV-04", LV_ALL, setid_project, 0, NULL,
             "set-user-ID and set-group-ID files made in the project (chmod, fchmod, fchmodat, fchmodat2, "
             "openat O_CREAT)");
  add_attack("PRIV-04.setid.i386", "PRIV-04", LV_ALL, setid_project, 1, NULL,
             "set-ID files made in the project through int $0x80");
  add_attack("PER-01", "PER-01", LV_K, git_persist, 0, NULL,
             "write .git/hooks and .git/config (run later on the host)");
  add_attack("PER-01.git", "PER-01", LV_K, git_persist, 2, NULL,
             "write .git/info, modules and worktrees, rename .git away (run later on the host)");
  add_attack("PER-01.commondir", "PER-01", LV_NONE, git_persist, 3, NULL,
             "make .git/commondir (report: moved aside after the run, not refused inside)");
  add_attack("PER-02", "PER-02", LV_NONE, git_persist, 1, NULL,
             "create other auto-run files in the project (report)");
  add_skipped("PER-03", "PER-03", "tampering with the agent's or engine's configuration",
              "no agent configuration is bound in this run; the engine reads no policy from the sandbox");
  add_skipped("PER-04", "PER-04", "traps for host-side tools",
              "host-side: decided by the engine's copy-out code, not from inside");
}
