#include "files.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "autogemm/tuning_cache.h"

namespace autogemm::detail {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string home_dir() {
  std::string home = env("HOME");
  if (!home.empty()) return home;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found && pw.pw_dir)
    return pw.pw_dir;
  return {};
}

[[noreturn]] void fail_errno(const std::string& what, const std::string& path, int err) {
  throw CacheError("tuning cache " + path + ": " + what + " failed: " + std::strerror(err));
}

// mkdir -p for the directories above `path`; only directories created here get 0700.
void create_parent_dirs(const std::string& file) {
  for (size_t pos = file.find('/', 1); pos != std::string::npos; pos = file.find('/', pos + 1)) {
    std::string dir = file.substr(0, pos);
    if (dir.empty() || dir.back() == '/') continue;  // "//" in the path
    if (mkdir(dir.c_str(), 0700) == 0) {
      chmod(dir.c_str(), 0700);  // ours: make it exactly 0700 whatever the umask
      continue;
    }
    struct stat st {};
    if (errno == EEXIST && stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
    fail_errno("creating the directory " + dir, file, errno == EEXIST ? ENOTDIR : errno);
  }
}

}  // namespace

std::string default_cache_path() {
  std::string explicit_path = env("AUTOGEMM_CACHE");
  if (!explicit_path.empty()) return explicit_path;
  std::string xdg = env("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg.front() == '/') return xdg + "/autogemm/tuning.db";
  std::string home = home_dir();
  if (home.empty())
    throw CacheError(
        "tuning cache: no location: AUTOGEMM_CACHE, XDG_CACHE_HOME and HOME are unset "
        "and the user has no home directory.");
  return home + "/.cache/autogemm/tuning.db";
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

void create_cache_file(const std::string& path) {
  if (path_exists(path)) return;
  create_parent_dirs(path);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return;  // another process created it first: theirs, untouched
    fail_errno("creating the file", path, errno);
  }
  fchmod(fd, 0600);  // ours: exactly 0600 whatever the umask
  close(fd);
}

void check_directory(const std::string& path, bool writable) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (access(dir.c_str(), W_OK | X_OK) == 0) return;
  const std::string why = std::strerror(errno);
  if (writable) {
    if (path_exists(path + "-wal") && path_exists(path + "-shm")) return;
    throw CacheError("tuning cache " + path + ": its directory " + dir + " is not writable (" +
                     why + "), and SQLite must create its -wal and -shm (or -journal) files "
                     "beside the file to write it. Make the directory writable, or use "
                     "another cache file.");
  }
  // Read-only: only a WAL-mode file (header bytes 18 and 19 are 2) needs its -shm.
  unsigned char h[20] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(h), sizeof h);
  if (in.gcount() != sizeof h || h[18] != 2 || h[19] != 2 || path_exists(path + "-shm")) return;
  throw CacheError("tuning cache " + path + ": is in WAL mode, and its directory " + dir +
                   " is not writable (" + why + "), so SQLite cannot create the -shm file it "
                   "needs to read it. Make the directory writable, or switch the file to the "
                   "rollback journal (sqlite3 " + path + " 'PRAGMA journal_mode=DELETE').");
}

namespace {

// One path's owner and mode against the rule; `what` names it in `why`.
bool owned_and_unshared(const std::string& path, const char* what, std::string* why) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    *why = std::string("cannot stat its ") + what + " " + path + ": " + std::strerror(errno);
    return false;
  }
  if (st.st_uid != geteuid() && st.st_uid != 0) {
    *why = std::string("its ") + what + " " + path + " belongs to user " + std::to_string(st.st_uid) +
           ", neither this user nor root";
    return false;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    *why = std::string("its ") + what + " " + path + " is writable by " +
           ((st.st_mode & S_IWOTH) ? "everyone" : "its group");
    return false;
  }
  return true;
}

}  // namespace

bool private_to_user(const std::string& path, std::string* why) {
  std::string ignored;
  if (!why) why = &ignored;
  std::vector<char> real(PATH_MAX + 1, '\0');
  if (!realpath(path.c_str(), real.data())) {
    *why = "cannot resolve " + path + ": " + std::strerror(errno);
    return false;
  }
  const std::string file(real.data());
  const size_t slash = file.rfind('/');
  const std::string dir = slash == 0 ? "/" : file.substr(0, slash);
  return owned_and_unshared(file, "file", why) && owned_and_unshared(dir, "directory", why);
}

}  // namespace autogemm::detail
