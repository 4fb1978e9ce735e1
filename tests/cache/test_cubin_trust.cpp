// A cache carries code: its stored cubins may be loaded only from a file that
// this user (or root) owns and no one else can write, in a directory of the
// same kind (TuningCache::cubins_trusted, applied by the dispatcher).
#include <sys/stat.h>
#include <unistd.h>

#include "cache_test_util.h"

namespace autogemm::test {
namespace {

class CubinTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(chmod(dir_.path().c_str(), 0700), 0);
    path_ = dir_.file("tuning.db");
    open_rw(path_);  // a cache made the way autogemm makes one: 0600 in 0700
  }
  bool trusted(std::string* why = nullptr) const { return TuningCache::cubins_trusted(path_, why); }

  TempDir dir_;
  std::string path_;
};

TEST_F(CubinTrust, ACacheAutogemmCreatedIsTrusted) {
  std::string why;
  EXPECT_TRUE(trusted(&why)) << why;
}

TEST_F(CubinTrust, OthersReadingIsFineOthersWritingIsNot) {
  ASSERT_EQ(chmod(path_.c_str(), 0644), 0);
  ASSERT_EQ(chmod(dir_.path().c_str(), 0755), 0);
  EXPECT_TRUE(trusted());
  std::string why;
  ASSERT_EQ(chmod(path_.c_str(), 0664), 0);
  EXPECT_FALSE(trusted(&why));
  EXPECT_NE(why.find("file"), std::string::npos) << why;
  EXPECT_NE(why.find("group"), std::string::npos) << why;
  ASSERT_EQ(chmod(path_.c_str(), 0646), 0);
  EXPECT_FALSE(trusted(&why));
  EXPECT_NE(why.find("everyone"), std::string::npos) << why;
}

TEST_F(CubinTrust, AWritableDirectoryIsNotTrustedEither) {
  std::string why;
  ASSERT_EQ(chmod(dir_.path().c_str(), 0770), 0);  // anyone in the group could swap the file
  EXPECT_FALSE(trusted(&why));
  EXPECT_NE(why.find("directory"), std::string::npos) << why;
  ASSERT_EQ(chmod(dir_.path().c_str(), 01777), 0);  // like /tmp
  EXPECT_FALSE(trusted(&why));
}

TEST_F(CubinTrust, ASymlinkIsJudgedByTheFileItReaches) {
  TempDir shared;
  ASSERT_EQ(chmod(shared.path().c_str(), 0777), 0);
  const std::string target = shared.file("team.db");
  open_rw(target);
  ASSERT_EQ(chmod(target.c_str(), 0666), 0);
  const std::string link = dir_.file("link.db");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  std::string why;
  EXPECT_FALSE(TuningCache::cubins_trusted(link, &why));
  EXPECT_NE(why.find(target), std::string::npos) << why;
}

TEST_F(CubinTrust, AMissingFileIsNotTrusted) {
  std::string why;
  EXPECT_FALSE(TuningCache::cubins_trusted(dir_.file("absent.db"), &why));
  EXPECT_FALSE(why.empty());
}

TEST_F(CubinTrust, AFileOfAnotherUserIsNotTrusted) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another user";
  ASSERT_EQ(chown(path_.c_str(), 65534, 65534), 0);  // nobody
  std::string why;
  EXPECT_FALSE(trusted(&why));
  EXPECT_NE(why.find("65534"), std::string::npos) << why;
  ASSERT_EQ(chown(path_.c_str(), 0, 0), 0);  // root's: trusted
  EXPECT_TRUE(trusted(&why)) << why;
}

}  // namespace
}  // namespace autogemm::test
