// SPDX-License-Identifier: LGPL-2.1-or-later
// probe: a statically linked test program run inside a sandbox. `probe json [PATH...]` prints one
// JSON object describing what the process sees (ids, maps, caps, pids, fds, env, cwd, hostname,
// namespaces, mounts, network interfaces, the given paths); the other subcommands perform one
// observable action each (exit, kill, orphan, write, tcp loopback, ...) for the integration and
// compat suites. Output is deterministic: lists are sorted, objects have a fixed key order.
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

// ---------------------------------------------------------------------------------------------
// Small JSON writer (stdout, buffered). Keys are written in the order the code emits them.

static bool need_comma[64];
static int depth;

static void jraw(const char* s) { fputs(s, stdout); }

static void jsep(void) {
  if (depth > 0 && need_comma[depth]) fputc(',', stdout);
  if (depth > 0) need_comma[depth] = true;
}

static void jstr_raw(const char* s) {
  fputc('"', stdout);
  for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
    switch (*p) {
      case '"': jraw("\\\""); break;
      case '\\': jraw("\\\\"); break;
      case '\n': jraw("\\n"); break;
      case '\t': jraw("\\t"); break;
      case '\r': jraw("\\r"); break;
      default:
        if (*p < 0x20 || *p >= 0x7f)
          printf("\\u%04x", *p);  // bytes, not code points: keeps output ASCII and valid JSON
        else
          fputc(*p, stdout);
    }
  }
  fputc('"', stdout);
}

static void jkey(const char* k) {
  jsep();
  jstr_raw(k);
  fputc(':', stdout);
  need_comma[depth] = true;
}

static void jopen(char c) {
  fputc(c, stdout);
  depth++;
  need_comma[depth] = false;
}
static void jclose(char c) {
  fputc(c, stdout);
  depth--;
}
// Values: inside an array they need a separator, after a key they do not.
static bool after_key;
static void jval_prefix(void) {
  if (after_key) {
    after_key = false;
    return;
  }
  jsep();
}
static void jk(const char* k) {
  jkey(k);
  after_key = true;
}
static void jobj(void) {
  jval_prefix();
  jopen('{');
}
static void jobj_end(void) { jclose('}'); }
static void jarr(void) {
  jval_prefix();
  jopen('[');
}
static void jarr_end(void) { jclose(']'); }
static void jstr(const char* s) {
  jval_prefix();
  if (s)
    jstr_raw(s);
  else
    jraw("null");
}
static void jint(long long v) {
  jval_prefix();
  printf("%lld", v);
}
static void jbool(bool v) {
  jval_prefix();
  jraw(v ? "true" : "false");
}
static void jnull(void) {
  jval_prefix();
  jraw("null");
}

// ---------------------------------------------------------------------------------------------
// Helpers

static int cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

static char* read_fd_all(int fd, size_t* len_out) {
  size_t cap = 4096, len = 0;
  char* buf = malloc(cap + 1);
  if (!buf) return NULL;
  for (;;) {
    if (len == cap) {
      cap *= 2;
      char* nb = realloc(buf, cap + 1);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      free(buf);
      errno = e;
      return NULL;
    }
    if (n == 0) break;
    len += (size_t)n;
  }
  buf[len] = 0;
  if (len_out) *len_out = len;
  return buf;
}

static char* read_file(const char* path, size_t* len_out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  char* s = read_fd_all(fd, len_out);
  int e = errno;
  close(fd);
  errno = e;
  return s;
}

static const char* errno_name(int e) {
  switch (e) {
    case 0: return "OK";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case ENXIO: return "ENXIO";
    case E2BIG: return "E2BIG";
    case ENOEXEC: return "ENOEXEC";
    case EBADF: return "EBADF";
    case ECHILD: return "ECHILD";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EXDEV: return "EXDEV";
    case ENODEV: return "ENODEV";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case ENFILE: return "ENFILE";
    case EMFILE: return "EMFILE";
    case ENOTTY: return "ENOTTY";
    case ETXTBSY: return "ETXTBSY";
    case EFBIG: return "EFBIG";
    case ENOSPC: return "ENOSPC";
    case ESPIPE: return "ESPIPE";
    case EROFS: return "EROFS";
    case EMLINK: return "EMLINK";
    case EPIPE: return "EPIPE";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOSYS: return "ENOSYS";
    case ENOTEMPTY: return "ENOTEMPTY";
    case ELOOP: return "ELOOP";
    case ENOMSG: return "ENOMSG";
    case EADDRINUSE: return "EADDRINUSE";
    case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
    case ENETDOWN: return "ENETDOWN";
    case ENETUNREACH: return "ENETUNREACH";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ECONNRESET: return "ECONNRESET";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    default: {
      static char buf[32];
      snprintf(buf, sizeof buf, "E%d", e);
      return buf;
    }
  }
}

static void emit_result(int ok, int err) {
  jobj();
  jk("ok");
  jbool(ok);
  jk("errno");
  jstr(ok ? "OK" : errno_name(err));
  jobj_end();
  jraw("\n");
}

// ---------------------------------------------------------------------------------------------
// json sections

static void emit_ids(void) {
  uid_t r, e, s;
  gid_t gr, ge, gs;
  getresuid(&r, &e, &s);
  getresgid(&gr, &ge, &gs);
  jk("uid");
  jobj();
  jk("real");
  jint(r);
  jk("effective");
  jint(e);
  jk("saved");
  jint(s);
  jobj_end();
  jk("gid");
  jobj();
  jk("real");
  jint(gr);
  jk("effective");
  jint(ge);
  jk("saved");
  jint(gs);
  jobj_end();
  gid_t groups[256];
  int n = getgroups(256, groups);
  jk("groups");
  jarr();
  for (int i = 0; i < n; ++i) jint(groups[i]);
  jarr_end();
}

static void emit_idmap(const char* key, const char* path) {
  jk(key);
  char* s = read_file(path, NULL);
  if (!s) {
    jnull();
    return;
  }
  jarr();
  char* save = NULL;
  for (char* line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    long long a, b, c;
    if (sscanf(line, "%lld %lld %lld", &a, &b, &c) == 3) {
      jarr();
      jint(a);
      jint(b);
      jint(c);
      jarr_end();
    }
  }
  jarr_end();
  free(s);
}

static void emit_setgroups(void) {
  jk("setgroups");
  char* s = read_file("/proc/self/setgroups", NULL);
  if (!s) {
    jnull();
    return;
  }
  size_t l = strlen(s);
  while (l && (s[l - 1] == '\n' || s[l - 1] == ' ')) s[--l] = 0;
  jstr(s);
  free(s);
}

static int last_cap(void) {
  // Highest capability number the kernel knows (PR_CAPBSET_READ fails with EINVAL above it).
  int i = 0;
  while (i < 64 && prctl(PR_CAPBSET_READ, i, 0, 0, 0) >= 0) ++i;
  return i - 1;
}

static void emit_hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v);
  jstr(buf);
}

static void emit_caps(void) {
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  long rc = syscall(SYS_capget, &hdr, data);
  uint64_t eff = 0, prm = 0, inh = 0, bnd = 0, amb = 0;
  if (rc == 0) {
    eff = ((uint64_t)data[1].effective << 32) | data[0].effective;
    prm = ((uint64_t)data[1].permitted << 32) | data[0].permitted;
    inh = ((uint64_t)data[1].inheritable << 32) | data[0].inheritable;
  }
  int last = last_cap();
  for (int i = 0; i <= last; ++i) {
    if (prctl(PR_CAPBSET_READ, i, 0, 0, 0) == 1) bnd |= 1ULL << i;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, i, 0, 0) == 1) amb |= 1ULL << i;
  }
  jk("caps");
  jobj();
  jk("amb");
  emit_hex(amb);
  jk("bnd");
  emit_hex(bnd);
  jk("eff");
  emit_hex(eff);
  jk("inh");
  emit_hex(inh);
  jk("last_cap");
  jint(last);
  jk("prm");
  emit_hex(prm);
  jobj_end();
}

static void emit_pid1_cmdline(void) {
  jk("pid1_cmdline");
  size_t len = 0;
  // Pid 1 may be in the middle of its exec of the reaper (it runs beside the command): its
  // cmdline reads empty while the kernel swaps its memory. Read again for up to 200 ms.
  char* s = read_file("/proc/1/cmdline", &len);
  for (int i = 0; i < 100 && (!s || len == 0); ++i) {
    free(s);
    usleep(2000);
    s = read_file("/proc/1/cmdline", &len);
  }
  if (!s) {
    jnull();
    return;
  }
  jarr();
  for (size_t i = 0; i < len;) {
    jstr(s + i);
    i += strlen(s + i) + 1;
  }
  jarr_end();
  free(s);
}

struct fdent {
  int fd;
  char target[PATH_MAX];
  int flags;
};

static int cmp_fdent(const void* a, const void* b) {
  return ((const struct fdent*)a)->fd - ((const struct fdent*)b)->fd;
}

static void emit_fds(void) {
  jk("fds");
  static struct fdent ents[4096];
  size_t n = 0;
  DIR* d = opendir("/proc/self/fd");
  if (d) {
    int own = dirfd(d);
    struct dirent* de;
    while ((de = readdir(d)) && n < 4096) {
      if (de->d_name[0] == '.') continue;
      int fd = atoi(de->d_name);
      if (fd == own) continue;
      char p[64];
      snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
      ssize_t l = readlink(p, ents[n].target, PATH_MAX - 1);
      ents[n].target[l < 0 ? 0 : l] = 0;
      ents[n].fd = fd;
      ents[n].flags = fcntl(fd, F_GETFD);
      ++n;
    }
    closedir(d);
  } else {
    // No /proc: find open fds by asking fcntl, without targets.
    for (int fd = 0; fd < 1024 && n < 4096; ++fd) {
      int fl = fcntl(fd, F_GETFD);
      if (fl < 0) continue;
      ents[n].fd = fd;
      ents[n].target[0] = 0;
      ents[n].flags = fl;
      ++n;
    }
  }
  qsort(ents, n, sizeof ents[0], cmp_fdent);
  jobj();
  for (size_t i = 0; i < n; ++i) {
    char k[16];
    snprintf(k, sizeof k, "%d", ents[i].fd);
    jk(k);
    jstr(ents[i].target);
  }
  jobj_end();
}

static void emit_env(void) {
  size_t n = 0;
  for (char** e = environ; *e; ++e) ++n;
  char** v = calloc(n + 1, sizeof *v);
  for (size_t i = 0; i < n; ++i) v[i] = environ[i];
  qsort(v, n, sizeof *v, cmp_str);
  jk("env");
  jarr();
  for (size_t i = 0; i < n; ++i) jstr(v[i]);
  jarr_end();
  free(v);
}

static void emit_ns(void) {
  static const char* names[] = {"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"};
  jk("ns");
  jobj();
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    char p[64];
    snprintf(p, sizeof p, "/proc/self/ns/%s", names[i]);
    struct stat st;
    jk(names[i]);
    if (stat(p, &st) == 0)
      jint((long long)st.st_ino);
    else
      jnull();
  }
  jobj_end();
}

// mountinfo: "id parent maj:min root mnt opts [optional...] - fstype source super"
struct mnt {
  char* mnt;
  char* root;
  char* fstype;
  char* source;
  char** opts;
  size_t nopts;
  char** super;
  size_t nsuper;
  char** prop;
  size_t nprop;
  size_t order;
};

static char* unescape_octal(const char* s) {
  char* out = malloc(strlen(s) + 1);
  char* o = out;
  while (*s) {
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
        s[3] <= '7') {
      *o++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
      s += 4;
    } else {
      *o++ = *s++;
    }
  }
  *o = 0;
  return out;
}

static char** split_sorted(const char* s, size_t* n_out) {
  char* copy = strdup(s);
  size_t cap = 8, n = 0;
  char** v = malloc(cap * sizeof *v);
  char* save = NULL;
  for (char* t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    v[n++] = strdup(t);
  }
  free(copy);
  qsort(v, n, sizeof *v, cmp_str);
  *n_out = n;
  return v;
}

static int cmp_mnt(const void* a, const void* b) {
  const struct mnt* x = a;
  const struct mnt* y = b;
  int c = strcmp(x->mnt, y->mnt);
  if (c) return c;
  return x->order < y->order ? -1 : x->order > y->order;
}

static void emit_str_list(char** v, size_t n) {
  jarr();
  for (size_t i = 0; i < n; ++i) jstr(v[i]);
  jarr_end();
}

static void emit_mounts(void) {
  jk("mounts");
  char* s = read_file("/proc/self/mountinfo", NULL);
  if (!s) {
    jnull();
    return;
  }
  size_t cap = 64, n = 0;
  struct mnt* m = calloc(cap, sizeof *m);
  char* save = NULL;
  for (char* line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char* fields[64];
    size_t nf = 0;
    char* save2 = NULL;
    for (char* t = strtok_r(line, " ", &save2); t && nf < 64; t = strtok_r(NULL, " ", &save2))
      fields[nf++] = t;
    size_t dash = 0;
    for (size_t i = 6; i < nf; ++i)
      if (strcmp(fields[i], "-") == 0) {
        dash = i;
        break;
      }
    if (!dash || nf < dash + 3) continue;
    if (n == cap) {
      m = realloc(m, (cap *= 2) * sizeof *m);
      memset(m + n, 0, (cap - n) * sizeof *m);
    }
    struct mnt* e = &m[n];
    e->order = n;
    e->root = unescape_octal(fields[3]);
    e->mnt = unescape_octal(fields[4]);
    e->opts = split_sorted(fields[5], &e->nopts);
    e->nprop = 0;
    e->prop = malloc((dash - 6 + 1) * sizeof *e->prop);
    for (size_t i = 6; i < dash; ++i) {
      // keep the tag (shared/master/propagate_from/unbindable), drop the peer group number
      char* tag = strdup(fields[i]);
      char* colon = strchr(tag, ':');
      if (colon) *colon = 0;
      e->prop[e->nprop++] = tag;
    }
    qsort(e->prop, e->nprop, sizeof *e->prop, cmp_str);
    e->fstype = unescape_octal(fields[dash + 1]);
    e->source = unescape_octal(fields[dash + 2]);
    e->super = split_sorted(dash + 3 < nf ? fields[dash + 3] : "", &e->nsuper);
    ++n;
  }
  free(s);
  qsort(m, n, sizeof *m, cmp_mnt);
  jarr();
  for (size_t i = 0; i < n; ++i) {
    jobj();
    jk("fstype");
    jstr(m[i].fstype);
    jk("mnt");
    jstr(m[i].mnt);
    jk("opts");
    emit_str_list(m[i].opts, m[i].nopts);
    jk("propagation");
    emit_str_list(m[i].prop, m[i].nprop);
    jk("root");
    jstr(m[i].root);
    jk("source");
    jstr(m[i].source);
    jk("super");
    emit_str_list(m[i].super, m[i].nsuper);
    jobj_end();
  }
  jarr_end();
}

struct ifent {
  char name[IF_NAMESIZE + 1];
  unsigned flags;
  char* addrs[32];
  size_t naddrs;
};

static int prefix_len(const struct sockaddr* mask) {
  if (!mask) return -1;
  const unsigned char* b;
  size_t len;
  if (mask->sa_family == AF_INET) {
    b = (const unsigned char*)&((const struct sockaddr_in*)mask)->sin_addr;
    len = 4;
  } else if (mask->sa_family == AF_INET6) {
    b = (const unsigned char*)&((const struct sockaddr_in6*)mask)->sin6_addr;
    len = 16;
  } else {
    return -1;
  }
  int bits = 0;
  for (size_t i = 0; i < len; ++i) bits += __builtin_popcount(b[i]);
  return bits;
}

static int cmp_ifent(const void* a, const void* b) {
  return strcmp(((const struct ifent*)a)->name, ((const struct ifent*)b)->name);
}

static void emit_net(void) {
  jk("net");
  struct ifaddrs* ifa = NULL;
  if (getifaddrs(&ifa) != 0) {
    jnull();
    return;
  }
  static struct ifent ifs[64];
  size_t n = 0;
  for (struct ifaddrs* p = ifa; p; p = p->ifa_next) {
    size_t i;
    for (i = 0; i < n; ++i)
      if (strcmp(ifs[i].name, p->ifa_name) == 0) break;
    if (i == n) {
      if (n == 64) continue;
      memset(&ifs[n], 0, sizeof ifs[n]);
      snprintf(ifs[n].name, sizeof ifs[n].name, "%s", p->ifa_name);
      ifs[n].flags = p->ifa_flags;
      ++n;
    }
    if (!p->ifa_addr || ifs[i].naddrs >= 32) continue;
    int fam = p->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    char host[INET6_ADDRSTRLEN];
    const void* a = fam == AF_INET ? (const void*)&((struct sockaddr_in*)p->ifa_addr)->sin_addr
                                   : (const void*)&((struct sockaddr_in6*)p->ifa_addr)->sin6_addr;
    inet_ntop(fam, a, host, sizeof host);
    char buf[INET6_ADDRSTRLEN + 16];
    snprintf(buf, sizeof buf, "%s/%d", host, prefix_len(p->ifa_netmask));
    ifs[i].addrs[ifs[i].naddrs++] = strdup(buf);
  }
  freeifaddrs(ifa);
  qsort(ifs, n, sizeof ifs[0], cmp_ifent);
  jarr();
  for (size_t i = 0; i < n; ++i) {
    qsort(ifs[i].addrs, ifs[i].naddrs, sizeof(char*), cmp_str);
    jobj();
    jk("addrs");
    emit_str_list(ifs[i].addrs, ifs[i].naddrs);
    jk("loopback");
    jbool(ifs[i].flags & IFF_LOOPBACK);
    jk("name");
    jstr(ifs[i].name);
    jk("running");
    jbool(ifs[i].flags & IFF_RUNNING);
    jk("up");
    jbool(ifs[i].flags & IFF_UP);
    jobj_end();
  }
  jarr_end();
}

static const char* type_name(mode_t m) {
  if (S_ISDIR(m)) return "dir";
  if (S_ISREG(m)) return "file";
  if (S_ISLNK(m)) return "symlink";
  if (S_ISCHR(m)) return "chr";
  if (S_ISBLK(m)) return "blk";
  if (S_ISFIFO(m)) return "fifo";
  if (S_ISSOCK(m)) return "sock";
  return "other";
}

static void emit_path(const char* path) {
  jk(path);
  struct stat st;
  if (lstat(path, &st) != 0) {
    jobj();
    jk("errno");
    jstr(errno_name(errno));
    jk("exists");
    jbool(false);
    jobj_end();
    return;
  }
  jobj();
  char acc[4] = "---";
  if (access(path, R_OK) == 0) acc[0] = 'r';
  if (access(path, W_OK) == 0) acc[1] = 'w';
  if (access(path, X_OK) == 0) acc[2] = 'x';
  jk("access");
  jstr(acc);
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    char dev[32];
    snprintf(dev, sizeof dev, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
    jk("dev");
    jstr(dev);
  }
  jk("exists");
  jbool(true);
  jk("gid");
  jint(st.st_gid);
  char mode[8];
  snprintf(mode, sizeof mode, "%04o", (unsigned)(st.st_mode & 07777));
  jk("mode");
  jstr(mode);
  if (S_ISREG(st.st_mode)) {
    jk("size");
    jint((long long)st.st_size);
  }
  if (S_ISLNK(st.st_mode)) {
    char t[PATH_MAX];
    ssize_t l = readlink(path, t, sizeof t - 1);
    t[l < 0 ? 0 : l] = 0;
    jk("target");
    jstr(t);
  }
  jk("type");
  jstr(type_name(st.st_mode));
  jk("uid");
  jint(st.st_uid);
  jobj_end();
}

static int cmd_json(int argc, char** argv) {
  char** paths = calloc((size_t)argc + 1, sizeof *paths);
  for (int i = 0; i < argc; ++i) paths[i] = argv[i];
  qsort(paths, (size_t)argc, sizeof *paths, cmp_str);

  jobj();
  emit_caps();
  char cwd[PATH_MAX];
  jk("cwd");
  if (getcwd(cwd, sizeof cwd))
    jstr(cwd);
  else
    jnull();
  emit_env();
  emit_fds();
  emit_ids();
  emit_idmap("gid_map", "/proc/self/gid_map");
  struct utsname u;
  uname(&u);
  jk("hostname");
  jstr(u.nodename);
  emit_mounts();
  emit_net();
  jk("no_new_privs");
  jint(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
  emit_ns();
  jk("paths");
  jobj();
  for (int i = 0; i < argc; ++i) emit_path(paths[i]);
  jobj_end();
  jk("pgid");
  jint(getpgid(0));
  jk("pid");
  jint(getpid());
  emit_pid1_cmdline();
  jk("ppid");
  jint(getppid());
  jk("seccomp");
  jint(prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
  emit_setgroups();
  jk("sid");
  jint(getsid(0));
  emit_idmap("uid_map", "/proc/self/uid_map");
  mode_t um = umask(0);
  umask(um);
  char ums[8];
  snprintf(ums, sizeof ums, "%04o", (unsigned)um);
  jk("umask");
  jstr(ums);
  jobj_end();
  jraw("\n");
  free(paths);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Action subcommands

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static void zombies(long** out, size_t* n_out) {
  size_t cap = 16, n = 0;
  long* v = malloc(cap * sizeof *v);
  DIR* d = opendir("/proc");
  struct dirent* de;
  while (d && (de = readdir(d))) {
    char* end;
    long pid = strtol(de->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    char p[64];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    char* s = read_file(p, NULL);
    if (!s) continue;
    char* rp = strrchr(s, ')');
    if (rp && rp[1] == ' ' && rp[2] == 'Z') {
      if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
      v[n++] = pid;
    }
    free(s);
  }
  if (d) closedir(d);
  *out = v;
  *n_out = n;
}

static int cmp_long(const void* a, const void* b) {
  long x = *(const long*)a, y = *(const long*)b;
  return x < y ? -1 : x > y;
}

// Fork a child that forks a grandchild living `ms` milliseconds; the child exits at once, so the
// grandchild is an orphan. Returns the grandchild pid (as seen here).
static pid_t make_orphan(long ms) {
  int p[2];
  if (pipe(p) != 0) return -1;
  pid_t c = fork();
  if (c == 0) {
    close(p[0]);
    pid_t g = fork();
    if (g == 0) {
      close(p[1]);
      // Let go of the caller's pipes so nobody waits for the orphan to see EOF.
      int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
      for (int fd = 0; fd <= 2; ++fd) {
        if (nul >= 0)
          dup2(nul, fd);
        else
          close(fd);
      }
      sleep_ms(ms);
      _exit(0);
    }
    if (write(p[1], &g, sizeof g) != (ssize_t)sizeof g) _exit(1);
    _exit(0);
  }
  close(p[1]);
  pid_t g = -1;
  if (read(p[0], &g, sizeof g) != (ssize_t)sizeof g) g = -1;
  close(p[0]);
  waitpid(c, NULL, 0);
  return g;
}

static int cmd_orphan(int argc, char** argv) {
  long ms = argc > 0 ? atol(argv[0]) : 1000;
  pid_t g = make_orphan(ms);
  jobj();
  jk("orphan");
  jint(g);
  jobj_end();
  jraw("\n");
  return g > 0 ? 0 : 1;
}

// An orphan that exits after 100ms must be reaped by whoever inherits it (the sandbox's pid 1).
static int cmd_reap_check(int argc, char** argv) {
  (void)argc;
  (void)argv;
  pid_t g = make_orphan(100);
  sleep_ms(800);
  long* z;
  size_t n;
  zombies(&z, &n);
  qsort(z, n, sizeof *z, cmp_long);
  char p[64];
  snprintf(p, sizeof p, "/proc/%d", (int)g);
  struct stat st;
  jobj();
  jk("orphan");
  jint(g);
  jk("orphan_gone");
  jbool(stat(p, &st) != 0);
  jk("zombies");
  jarr();
  for (size_t i = 0; i < n; ++i) jint(z[i]);
  jarr_end();
  jobj_end();
  jraw("\n");
  free(z);
  return 0;
}

static int cmd_write(int argc, char** argv) {
  if (argc < 1) return 2;
  const char* content = argc > 1 ? argv[1] : "probe\n";
  int fd = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    emit_result(0, errno);
    return 0;
  }
  size_t len = strlen(content);
  ssize_t w = write(fd, content, len);
  int e = errno;
  close(fd);
  emit_result(w == (ssize_t)len, e);
  return 0;
}

static int cmd_mkdir(int argc, char** argv) {
  if (argc < 1) return 2;
  int rc = mkdir(argv[0], 0755);
  emit_result(rc == 0, errno);
  return 0;
}

static int cmd_open(int argc, char** argv) {
  if (argc < 1) return 2;
  int flags = O_RDONLY;
  if (argc > 1 && strcmp(argv[1], "w") == 0) flags = O_WRONLY;
  if (argc > 1 && strcmp(argv[1], "rw") == 0) flags = O_RDWR;
  int fd = open(argv[0], flags | O_CLOEXEC | O_NOCTTY);
  int e = errno;
  if (fd >= 0) close(fd);
  emit_result(fd >= 0, e);
  return 0;
}

static int cmd_cat(int argc, char** argv) {
  if (argc < 1) return 2;
  size_t len;
  // "-" reads the inherited stdin itself (re-opening /proc/self/fd/0 may be refused)
  char* s = strcmp(argv[0], "-") == 0 ? read_fd_all(0, &len) : read_file(argv[0], &len);
  if (!s) {
    fprintf(stderr, "probe: cat %s: %s\n", argv[0], strerror(errno));
    return 1;
  }
  fwrite(s, 1, len, stdout);
  free(s);
  return 0;
}

struct lsent {
  char* name;
  const char* type;
};
static int cmp_lsent(const void* a, const void* b) {
  return strcmp(((const struct lsent*)a)->name, ((const struct lsent*)b)->name);
}

static int cmd_ls(int argc, char** argv) {
  if (argc < 1) return 2;
  DIR* d = opendir(argv[0]);
  if (!d) {
    jobj();
    jk("errno");
    jstr(errno_name(errno));
    jobj_end();
    jraw("\n");
    return 1;
  }
  size_t cap = 32, n = 0;
  struct lsent* v = malloc(cap * sizeof *v);
  struct dirent* de;
  while ((de = readdir(d))) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    struct stat st;
    v[n].name = strdup(de->d_name);
    v[n].type =
        fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? type_name(st.st_mode) : "unknown";
    ++n;
  }
  closedir(d);
  qsort(v, n, sizeof *v, cmp_lsent);
  jobj();
  for (size_t i = 0; i < n; ++i) {
    jk(v[i].name);
    jstr(v[i].type);
  }
  jobj_end();
  jraw("\n");
  return 0;
}

// Bind and listen on 127.0.0.1 (or ::1) port 0 inside the sandbox's own network namespace,
// connect to it, exchange one message. Never touches any other address.
static int cmd_tcp(int argc, char** argv) {
  bool v6 = argc > 0 && strcmp(argv[0], "6") == 0;
  int fam = v6 ? AF_INET6 : AF_INET;
  struct sockaddr_storage ss;
  socklen_t sl;
  memset(&ss, 0, sizeof ss);
  if (v6) {
    struct sockaddr_in6* a = (struct sockaddr_in6*)&ss;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
    sl = sizeof *a;
  } else {
    struct sockaddr_in* a = (struct sockaddr_in*)&ss;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sl = sizeof *a;
  }
  const char* stage = "socket";
  int err = 0;
  int ls = -1, cs = -1, as = -1;
  char buf[8] = {0};
  ls = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (ls < 0) goto fail;
  stage = "bind";
  if (bind(ls, (struct sockaddr*)&ss, sl) != 0) goto fail;
  stage = "getsockname";
  if (getsockname(ls, (struct sockaddr*)&ss, &sl) != 0) goto fail;
  stage = "listen";
  if (listen(ls, 1) != 0) goto fail;
  stage = "socket";
  cs = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (cs < 0) goto fail;
  stage = "connect";
  if (connect(cs, (struct sockaddr*)&ss, sl) != 0) goto fail;
  stage = "accept";
  as = accept(ls, NULL, NULL);
  if (as < 0) goto fail;
  stage = "send";
  if (send(cs, "ping", 4, 0) != 4) goto fail;
  stage = "recv";
  if (recv(as, buf, 4, MSG_WAITALL) != 4) goto fail;
  stage = "compare";
  if (memcmp(buf, "ping", 4) != 0) {
    errno = EIO;
    goto fail;
  }
  stage = "done";
  errno = 0;
fail:
  err = errno;
  if (ls >= 0) close(ls);
  if (cs >= 0) close(cs);
  if (as >= 0) close(as);
  jobj();
  jk("errno");
  jstr(errno_name(err));
  jk("ok");
  jbool(strcmp(stage, "done") == 0);
  jk("stage");
  jstr(stage);
  jobj_end();
  jraw("\n");
  return 0;
}

static int cmd_syscall(int argc, char** argv) {
  if (argc < 1) return 2;
  long nr;
  if (strcmp(argv[0], "getpgid") == 0)
    nr = SYS_getpgid;
  else if (strcmp(argv[0], "getsid") == 0)
    nr = SYS_getsid;
  else if (strcmp(argv[0], "getppid") == 0)
    nr = SYS_getppid;
  else
    return 2;
  errno = 0;
  long rc = syscall(nr, 0);
  int e = errno;
  jobj();
  jk("errno");
  jstr(rc < 0 ? errno_name(e) : "OK");
  jk("ok");
  jbool(rc >= 0);
  jobj_end();
  jraw("\n");
  return 0;
}

static int cmd_kill(int argc, char** argv) {
  int sig = argc > 0 ? atoi(argv[0]) : SIGKILL;
  fflush(stdout);
  kill(getpid(), sig);
  sleep_ms(2000);  // a pid 1 ignores signals it has no handler for
  return 125;
}

static int cmd_sleep(int argc, char** argv) {
  double secs = argc > 0 ? atof(argv[0]) : 60;
  sleep_ms((long)(secs * 1000));
  return 0;
}

// argv: what this process was started with (argv[0] may differ from the executed file).
static int cmd_argv(int argc, char** argv) {
  jobj();
  jk("argv");
  jarr();
  for (int i = 0; i < argc; ++i) jstr(argv[i]);
  jarr_end();
  char* comm = read_file("/proc/self/comm", NULL);
  if (comm) {
    size_t l = strlen(comm);
    while (l && comm[l - 1] == '\n') comm[--l] = 0;
  }
  jk("comm");
  jstr(comm);
  free(comm);
  char exe[PATH_MAX];
  ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
  jk("exe");
  if (l >= 0) {
    exe[l] = 0;
    jstr(exe);
  } else {
    jnull();
  }
  jobj_end();
  jraw("\n");
  return 0;
}

// userns [write]: can a new user namespace be created from here (tried in a child, so this
// process stays where it is), and what does user.max_user_namespaces say. With "write" the
// value read is written back unchanged (only meaningful inside a user namespace of the
// sandbox's own: the limit is per user namespace).
static int cmd_userns(int argc, char** argv) {
  bool do_write = argc > 0 && strcmp(argv[0], "write") == 0;
  const char* sysctl = "/proc/sys/user/max_user_namespaces";
  char* val = read_file(sysctl, NULL);
  int rerr = errno;
  if (val) {
    size_t l = strlen(val);
    while (l && val[l - 1] == '\n') val[--l] = 0;
  }
  int ok = 0, err = 0;
  pid_t c = fork();
  if (c == 0) _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0xff ? errno & 0xff : 255));
  int st = 0;
  if (c < 0) {
    err = errno;
  } else if (waitpid(c, &st, 0) < 0) {
    err = errno;
  } else if (WIFEXITED(st)) {
    ok = WEXITSTATUS(st) == 0;
    err = WEXITSTATUS(st);
  } else {
    err = EINTR;
  }
  jobj();
  jk("max_user_namespaces");
  jstr(val);
  jk("read_errno");
  jstr(val ? "OK" : errno_name(rerr));
  jk("unshare_user");
  jobj();
  jk("errno");
  jstr(ok ? "OK" : errno_name(err));
  jk("ok");
  jbool(ok);
  jobj_end();
  if (do_write) {
    int wok = 0, werr = 0;
    int fd = open(sysctl, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      werr = errno;
    } else {
      const char* v = val ? val : "";
      ssize_t w = write(fd, v, strlen(v));
      wok = w == (ssize_t)strlen(v);
      werr = errno;
      close(fd);
    }
    jk("write");
    jobj();
    jk("errno");
    jstr(wok ? "OK" : errno_name(werr));
    jk("ok");
    jbool(wok);
    jobj_end();
  }
  jobj_end();
  jraw("\n");
  free(val);
  return 0;
}

// Read fd until EOF (or an error); returns false on a read error other than EINTR.
static bool drain_fd(int fd) {
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

// hold [PATH...]: print the `json` object, then wait for EOF on stdin (the test decides when
// the sandbox may end) and exit 0.
static int cmd_hold(int argc, char** argv) {
  cmd_json(argc, argv);
  fflush(stdout);
  return drain_fd(0) ? 0 : 1;
}

// wait-fd FD [EXIT]: wait for EOF on FD, then exit EXIT (default 0).
static int cmd_wait_fd(int argc, char** argv) {
  if (argc < 1) return 2;
  int fd = atoi(argv[0]);
  bool ok = drain_fd(fd);
  return ok ? (argc > 1 ? atoi(argv[1]) : 0) : 1;
}

// grep TOKEN ROOT [EXCLUDE...]: regular files under ROOT (symlinks not followed, EXCLUDE
// subtrees skipped) whose first 4 MiB contain TOKEN; also counts what could not be read.
struct grepres {
  char** paths;
  size_t n, cap;
  long unreadable;
};

static void grep_walk(const char* dir, const char* token, char** excl, int nexcl, int depth,
                      struct grepres* r) {
  for (int i = 0; i < nexcl; ++i)
    if (strcmp(dir, excl[i]) == 0) return;
  if (depth > 40) return;
  DIR* d = opendir(dir);
  if (!d) {
    r->unreadable++;
    return;
  }
  struct dirent* de;
  while ((de = readdir(d))) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, de->d_name);
    struct stat st;
    if (lstat(p, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      grep_walk(p, token, excl, nexcl, depth + 1, r);
    } else if (S_ISREG(st.st_mode)) {
      int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
      if (fd < 0) {
        r->unreadable++;
        continue;
      }
      static char buf[4 << 20];
      size_t len = 0;
      for (;;) {
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0) break;
        len += (size_t)n;
        if (len == sizeof buf - 1) break;
      }
      close(fd);
      buf[len] = 0;
      if (memmem(buf, len, token, strlen(token))) {
        if (r->n == r->cap) r->paths = realloc(r->paths, (r->cap = r->cap * 2 + 8) * sizeof(char*));
        r->paths[r->n++] = strdup(p);
      }
    }
  }
  closedir(d);
}

static int cmd_grep(int argc, char** argv) {
  if (argc < 2) return 2;
  struct grepres r = {0};
  grep_walk(argv[1], argv[0], argv + 2, argc - 2, 0, &r);
  qsort(r.paths, r.n, sizeof *r.paths, cmp_str);
  jobj();
  jk("matches");
  emit_str_list(r.paths, r.n);
  jk("unreadable");
  jint(r.unreadable);
  jobj_end();
  jraw("\n");
  return 0;
}

// stat PATH...: link count and the basics (nlink 0 = an unlinked file mounted somewhere).
static int cmd_stat(int argc, char** argv) {
  jobj();
  for (int i = 0; i < argc; ++i) {
    jk(argv[i]);
    struct stat st;
    if (lstat(argv[i], &st) != 0) {
      jobj();
      jk("errno");
      jstr(errno_name(errno));
      jobj_end();
      continue;
    }
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", (unsigned)(st.st_mode & 07777));
    jobj();
    jk("mode");
    jstr(mode);
    jk("nlink");
    jint((long long)st.st_nlink);
    jk("size");
    jint((long long)st.st_size);
    jk("type");
    jstr(type_name(st.st_mode));
    jobj_end();
  }
  jobj_end();
  jraw("\n");
  return 0;
}

// lock PATH [WAIT_MS]: who holds a POSIX record lock on PATH. Waits up to WAIT_MS (default
// 3000) for one to appear (a lock-holding reaper may start after this process), then tries to
// take a write lock itself.
static int cmd_lock(int argc, char** argv) {
  if (argc < 1) return 2;
  long wait_ms = argc > 1 ? atol(argv[1]) : 3000;
  int fd = open(argv[0], O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    jobj();
    jk("errno");
    jstr(errno_name(errno));
    jobj_end();
    jraw("\n");
    return 1;
  }
  struct flock l;
  for (long waited = 0;; waited += 20) {
    memset(&l, 0, sizeof l);
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    if (fcntl(fd, F_GETLK, &l) != 0) l.l_type = F_UNLCK;
    if (l.l_type != F_UNLCK || waited >= wait_ms) break;
    sleep_ms(20);
  }
  const char* holder = NULL;
  const char* type = NULL;
  if (l.l_type != F_UNLCK) {
    type = l.l_type == F_RDLCK ? "read" : "write";
    if (l.l_pid == getppid())
      holder = "parent";
    else if (l.l_pid == 1)
      holder = "pid 1";
    else if (l.l_pid == 0)
      holder = "0 (not in this pid namespace)";
    else
      holder = "other";
  }
  int wfd = open(argv[0], O_RDWR | O_CLOEXEC | O_NOCTTY);
  int wok = 0, werr = errno;
  if (wfd >= 0) {
    struct flock w = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    wok = fcntl(wfd, F_SETLK, &w) == 0;
    werr = errno;
    close(wfd);
  }
  close(fd);
  jobj();
  jk("held");
  jbool(l.l_type != F_UNLCK);
  jk("holder");
  jstr(holder);
  jk("type");
  jstr(type);
  jk("write_lock");
  jobj();
  jk("errno");
  jstr(wok ? "OK" : errno_name(werr));
  jk("ok");
  jbool(wok);
  jobj_end();
  jobj_end();
  jraw("\n");
  return 0;
}

static int usage(void) {
  fputs(
      "usage: probe json [PATH...] | exit N | kill SIG | sleep SECS | orphan MS | reap-check |\n"
      "       write PATH [TEXT] | mkdir PATH | open PATH [r|w|rw] | cat PATH | ls PATH |\n"
      "       tcp [4|6] | syscall getpgid|getsid|getppid | argv [ARG...] | userns [write] |\n"
      "       hold [PATH...] | wait-fd FD [EXIT] | grep TOKEN ROOT [EXCLUDE...] |\n"
      "       stat PATH... | lock PATH [WAIT_MS]\n",
      stderr);
  return 2;
}

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const char* cmd = argv[1];
  int n = argc - 2;
  char** a = argv + 2;
  int rc;
  if (strcmp(cmd, "json") == 0)
    rc = cmd_json(n, a);
  else if (strcmp(cmd, "exit") == 0)
    rc = n > 0 ? atoi(a[0]) : 0;
  else if (strcmp(cmd, "kill") == 0)
    rc = cmd_kill(n, a);
  else if (strcmp(cmd, "sleep") == 0)
    rc = cmd_sleep(n, a);
  else if (strcmp(cmd, "orphan") == 0)
    rc = cmd_orphan(n, a);
  else if (strcmp(cmd, "reap-check") == 0)
    rc = cmd_reap_check(n, a);
  else if (strcmp(cmd, "write") == 0)
    rc = cmd_write(n, a);
  else if (strcmp(cmd, "mkdir") == 0)
    rc = cmd_mkdir(n, a);
  else if (strcmp(cmd, "open") == 0)
    rc = cmd_open(n, a);
  else if (strcmp(cmd, "cat") == 0)
    rc = cmd_cat(n, a);
  else if (strcmp(cmd, "ls") == 0)
    rc = cmd_ls(n, a);
  else if (strcmp(cmd, "tcp") == 0)
    rc = cmd_tcp(n, a);
  else if (strcmp(cmd, "syscall") == 0)
    rc = cmd_syscall(n, a);
  else if (strcmp(cmd, "argv") == 0)
    rc = cmd_argv(argc, argv);
  else if (strcmp(cmd, "userns") == 0)
    rc = cmd_userns(n, a);
  else if (strcmp(cmd, "hold") == 0)
    rc = cmd_hold(n, a);
  else if (strcmp(cmd, "wait-fd") == 0)
    rc = cmd_wait_fd(n, a);
  else if (strcmp(cmd, "grep") == 0)
    rc = cmd_grep(n, a);
  else if (strcmp(cmd, "stat") == 0)
    rc = cmd_stat(n, a);
  else if (strcmp(cmd, "lock") == 0)
    rc = cmd_lock(n, a);
  else
    return usage();
  fflush(stdout);
  return rc;
}
