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

// ---- several roots, replaced (an MCP client's roots) or none yet ----

// Resolve's FS_OUTSIDE_WORKSPACE message for `path`, or "" when it resolved.
std::string Refusal(const Workspace& w, const std::string& path) {
  try {
    (void)w.Resolve(path, "read");
    return "";
  } catch (const runtime::ToolError& e) {
    EXPECT_EQ(e.info().code, "FS_OUTSIDE_WORKSPACE");
    return e.what();
  }
}

TEST_F(WorkspaceTest, SeveralRootsServeEachAndRefuseWhatIsInNone) {
  const std::string second = std::filesystem::canonical(dir_.path()).string() + "/second";
  std::filesystem::create_directories(second);
  WriteFile(second + "/c.txt", "gamma\n");
  ASSERT_TRUE(workspace_->Replace({root_, second}, "unused").ok());
  EXPECT_EQ(workspace_->root(), root_);  // the first is the primary
  EXPECT_EQ(Refusal(*workspace_, "a.txt"), "");  // relative: against the primary root
  EXPECT_EQ(workspace_->Resolve("a.txt", "read").display, root_ + "/a.txt");
  EXPECT_EQ(Refusal(*workspace_, second + "/c.txt"), "");
  EXPECT_EQ(Opened(second + "/c.txt"), "gamma\n");  // beneath the root it is in
  EXPECT_EQ(Workspace(*workspace_).Cwd(), root_);
  const std::string outside = Refusal(*workspace_, dir_.path() + "/outside.txt");
  EXPECT_NE(outside.find("outside the workspace roots \"" + root_ + "\", \"" + second + "\""), std::string::npos)
      << outside;
  EXPECT_EQ(Opened(dir_.path() + "/outside.txt"), "");
  // A sibling that extends the second root's name is outside it too.
  std::filesystem::create_directories(second + "-evil");
  EXPECT_NE(Refusal(*workspace_, second + "-evil/x"), "");
}

TEST_F(WorkspaceTest, ReplacingTheRootsChangesEveryCopy) {
  const Workspace copy = *workspace_;  // as each tool holds one
  const std::string other = std::filesystem::canonical(dir_.path()).string() + "/other";
  std::filesystem::create_directories(other);
  ASSERT_TRUE(workspace_->Replace({other}, "unused").ok());
  EXPECT_EQ(copy.root(), other);
  EXPECT_NE(Refusal(copy, root_ + "/a.txt"), "");
  EXPECT_EQ(Opened("a.txt"), "");
  // A root that is not a directory changes nothing.
  EXPECT_FALSE(workspace_->Replace({root_, dir_.path() + "/outside.txt"}, "unused").ok());
  EXPECT_EQ(copy.root(), other);
}

TEST_F(WorkspaceTest, NoRootRefusesEveryPathAndTheCwdWithTheReason) {
  const Workspace unset = Workspace::Unset("no workspace: pass --workspace");
  EXPECT_EQ(unset.root(), "");
  EXPECT_TRUE(unset.roots().empty());
  EXPECT_NE(Refusal(unset, "/etc/hostname").find("no workspace: pass --workspace"), std::string::npos);
  EXPECT_NE(Refusal(unset, "a.txt"), "");
  EXPECT_FALSE(unset.OpenToRead("/etc/hostname").has_value());
  EXPECT_THROW((void)unset.Cwd(), runtime::ToolError);
  // Emptied by Replace: the same.
  ASSERT_TRUE(workspace_->Replace({}, "the roots are gone").ok());
  EXPECT_NE(Refusal(*workspace_, root_ + "/a.txt").find("the roots are gone"), std::string::npos);
  EXPECT_EQ(Opened("a.txt"), "");
}

}  // namespace
}  // namespace retrace::tools
