// Where the cache lives and how it is created: default path precedence,
// permissions of new files and directories.
#include <sys/stat.h>

#include <cstdlib>
#include <optional>

#include "cache_test_util.h"

namespace autogemm::test {
namespace {

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Sets or unsets environment variables for one test, restoring them after.
class EnvGuard {
 public:
  void set(const char* name, const char* value) {
    saved_.push_back({name, std::getenv(name) ? std::optional<std::string>(std::getenv(name))
                                              : std::nullopt});
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~EnvGuard() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(Files, NewFileIs0600InNew0700Directories) {
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  const mode_t old_umask = umask(0);  // the widest umask: modes must still be exact
  const std::string path = dir.file("a/b/c/tuning.db");
  open_rw(path);
  umask(old_umask);
  EXPECT_EQ(mode_of(dir.file("a")), 0700u);
  EXPECT_EQ(mode_of(dir.file("a/b")), 0700u);
  EXPECT_EQ(mode_of(dir.file("a/b/c")), 0700u);
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(mode_of(dir.path()), 0755u);  // existing directories are left alone
}

TEST(Files, ExistingFileModeIsLeftAlone) {
  TempDir dir;
  const std::string path = dir.file("shared.db");
  write_bytes(path, {});
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  open_rw(path);
  EXPECT_EQ(mode_of(path), 0640u);
}

TEST(Files, PathThroughAFileIsAnError) {
  TempDir dir;
  write_bytes(dir.file("plain"), {'x'});
  EXPECT_THROW(open_rw(dir.file("plain/tuning.db")), CacheError);
  EXPECT_THROW(open_rw(""), CacheError);
  EXPECT_THROW(open_rw(dir.path()), CacheError);  // a directory
}

TEST(DefaultPath, Precedence) {
  EnvGuard env;
  env.set("AUTOGEMM_CACHE", "/x/explicit.db");
  env.set("XDG_CACHE_HOME", "/xdg");
  env.set("HOME", "/home/u");
  EXPECT_EQ(TuningCache::default_path(), "/x/explicit.db");
  env.set("AUTOGEMM_CACHE", "");  // empty counts as unset
  EXPECT_EQ(TuningCache::default_path(), "/xdg/autogemm/tuning.db");
  env.set("AUTOGEMM_CACHE", nullptr);
  EXPECT_EQ(TuningCache::default_path(), "/xdg/autogemm/tuning.db");
  env.set("XDG_CACHE_HOME", "");
  EXPECT_EQ(TuningCache::default_path(), "/home/u/.cache/autogemm/tuning.db");
  env.set("XDG_CACHE_HOME", "relative/dir");  // XDG: relative paths are ignored
  EXPECT_EQ(TuningCache::default_path(), "/home/u/.cache/autogemm/tuning.db");
  env.set("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(TuningCache::default_path(), "/home/u/.cache/autogemm/tuning.db");
  env.set("HOME", nullptr);  // falls back to the password database
  EXPECT_NE(TuningCache::default_path().find("/.cache/autogemm/tuning.db"), std::string::npos);
}

TEST(DefaultPath, BusyTimeoutFromEnvironment) {
  EnvGuard env;
  env.set("AUTOGEMM_CACHE_BUSY_MS", "not a number");  // warns, uses the default
  TempDir dir;
  EXPECT_NO_THROW(open_rw(dir.file("b.db")));
  env.set("AUTOGEMM_CACHE_BUSY_MS", "250");
  EXPECT_NO_THROW(open_rw(dir.file("b.db")));
}

}  // namespace
}  // namespace autogemm::test
