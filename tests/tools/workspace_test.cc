// Workspace::OpenToRead: the one-call open of a file beneath the root, and
// every case it leaves to Resolve().
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "tests/test_util.h"
#include "tools/file_ops.h"
#include "tools/workspace.h"

namespace retrace::tools {
namespace {

using retrace::testing::TempDir;
using retrace::testing::WriteFile;

class WorkspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::canonical(dir_.path()).string() + "/ws";
    std::filesystem::create_directories(root_ + "/src");
    WriteFile(root_ + "/a.txt", "alpha\n");
    WriteFile(root_ + "/src/b.txt", "beta\n");
    WriteFile(dir_.path() + "/outside.txt", "secret\n");
    workspace_.emplace(std::move(Workspace::Open(root_)).value());
  }
  // What OpenToRead opened, read through its descriptor; "" when it declined.
  std::string Opened(const std::string& path, std::string* display = nullptr) {
    std::optional<OpenedFile> f = workspace_->OpenToRead(path);
    if (!f) return "";
    if (display) *display = f->display;
    return ReadAll(f->fd.get(), 0).value_or("(read error)");
  }

  TempDir dir_;
  std::string root_;
  std::optional<Workspace> workspace_;
};

TEST_F(WorkspaceTest, OpenToReadOpensFilesBeneathTheRootWithTheirLexicalPath) {
  std::string display;
  EXPECT_EQ(Opened("a.txt", &display), "alpha\n");
  EXPECT_EQ(display, root_ + "/a.txt");
  EXPECT_EQ(Opened("src/../src/./b.txt", &display), "beta\n");
  EXPECT_EQ(display, root_ + "/src/b.txt");
  EXPECT_EQ(Opened(root_ + "/src/b.txt"), "beta\n");  // absolute, inside
}

// "<root>-evil" starts with the root's name but is a sibling: the boundary
// is a whole path component, not a string prefix.
TEST_F(WorkspaceTest, ASiblingWhoseNameExtendsTheRootsIsOutside) {
  std::filesystem::create_directories(root_ + "-evil");
  WriteFile(root_ + "-evil/x.txt", "secret\n");
  for (const std::string& path : {root_ + "-evil/x.txt", std::string("../ws-evil/x.txt"), root_ + "-evil"}) {
    SCOPED_TRACE(path);
    try {
      (void)workspace_->Resolve(path, "read");
      ADD_FAILURE() << "resolved inside the workspace";
    } catch (const runtime::ToolError& e) {
      EXPECT_EQ(e.info().code, "FS_OUTSIDE_WORKSPACE");
    }
    EXPECT_EQ(Opened(path), "");
  }
  EXPECT_NO_THROW((void)workspace_->Resolve(root_ + "/a.txt", "read"));
}

TEST_F(WorkspaceTest, OpenToReadFollowsARelativeSymlinkThatStaysInside) {
  std::filesystem::create_symlink("../a.txt", root_ + "/src/up.txt");
  std::string display;
  EXPECT_EQ(Opened("src/up.txt", &display), "alpha\n");
  EXPECT_EQ(display, root_ + "/src/up.txt");
  EXPECT_EQ(workspace_->Resolve("src/up.txt", "read").real, root_ + "/a.txt");
}

TEST_F(WorkspaceTest, OpenToReadDeclinesWhatLeavesTheRootAndResolveRefusesIt) {
  std::filesystem::create_symlink("../outside.txt", root_ + "/relative-out.txt");
  std::filesystem::create_symlink(dir_.path() + "/outside.txt", root_ + "/absolute-out.txt");
  std::filesystem::create_symlink("..", root_ + "/src/parent");
  std::filesystem::create_symlink("../..", root_ + "/src/grandparent");
  for (const std::string& path : {std::string("../outside.txt"), dir_.path() + "/outside.txt", std::string("/etc/passwd"),
                                 std::string("relative-out.txt"), std::string("absolute-out.txt"),
                                 std::string("src/grandparent/outside.txt")}) {
    EXPECT_EQ(Opened(path), "") << path;
    EXPECT_THROW(workspace_->Resolve(path, "read"), runtime::ToolError) << path;
  }
  EXPECT_EQ(Opened("src/parent/a.txt"), "alpha\n");  // `..` through a symlink that stays inside
}

TEST_F(WorkspaceTest, OpenToReadDeclinesAnAbsoluteSymlinkInsideWhichResolveFollows) {
  // RESOLVE_BENEATH refuses every absolute symlink; Resolve() then decides.
  std::filesystem::create_symlink(root_ + "/a.txt", root_ + "/alias.txt");
  EXPECT_EQ(Opened("alias.txt"), "");
  EXPECT_EQ(workspace_->Resolve("alias.txt", "read").real, root_ + "/a.txt");
}

TEST_F(WorkspaceTest, OpenToReadDeclinesWhatIsAbsent) {
  EXPECT_EQ(Opened("missing.txt"), "");
  EXPECT_EQ(Opened("missing/b.txt"), "");
}

TEST_F(WorkspaceTest, OpenPlainToReadDeclinesEverySymlinkOnTheWay) {
  // A path it opens has no link on its way: its display path is its real path.
  std::optional<OpenedFile> plain = workspace_->OpenPlainToRead("src/../a.txt");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->display, root_ + "/a.txt");
  EXPECT_EQ(workspace_->Resolve("a.txt", "write").real, plain->display);
  std::filesystem::create_symlink("../a.txt", root_ + "/src/up.txt");
  std::filesystem::create_symlink(".", root_ + "/here");
  EXPECT_FALSE(workspace_->OpenPlainToRead("src/up.txt"));  // a link that stays inside, as the last part
  EXPECT_FALSE(workspace_->OpenPlainToRead("here/a.txt"));  // or on the way
  EXPECT_TRUE(workspace_->OpenToRead("src/up.txt"));
  EXPECT_FALSE(workspace_->OpenPlainToRead("../outside.txt"));
}

TEST_F(WorkspaceTest, OpenToReadOpensAFifoWithoutWaitingForAWriter) {
  ASSERT_EQ(::mkfifo((root_ + "/fifo").c_str(), 0600), 0);
  std::optional<OpenedFile> f = workspace_->OpenToRead("fifo");  // would block without O_NONBLOCK
  ASSERT_TRUE(f);
  struct stat st;
  ASSERT_EQ(::fstat(f->fd.get(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

}  // namespace
}  // namespace retrace::tools
