// AtomicFile: readers see nothing or everything, and a path that names a
// stream (a FIFO here, /dev/null for users) is written in place, never
// replaced by a regular file.
#include "format/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace retrace::format {
namespace {

using ::testing::HasSubstr;
using retrace::testing::ReadFile;
using retrace::testing::TempDir;
using retrace::testing::WriteFile;

size_t EntriesIn(const std::filesystem::path& dir) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

TEST(AtomicFileTest, AnUncommittedFileLeavesNothingBehind) {
  TempDir dir;
  {
    auto file = AtomicFile::Create(dir / "out.json");
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->Append("partial").ok());
  }
  EXPECT_EQ(EntriesIn(dir.path()), 0u);
}

TEST(AtomicFileTest, CommitReplacesOrRefusesAnExistingFile) {
  TempDir dir;
  WriteFile(dir / "out.json", "old");
  auto replace = AtomicFile::Create(dir / "out.json");
  ASSERT_TRUE(replace.ok());
  ASSERT_TRUE(replace->Append("new").ok());
  ASSERT_TRUE(replace->Commit(/*overwrite=*/true).ok());
  EXPECT_EQ(ReadFile(dir / "out.json"), "new");

  auto keep = AtomicFile::Create(dir / "out.json");
  ASSERT_TRUE(keep.ok());
  ASSERT_TRUE(keep->Append("newer").ok());
  Status st = keep->Commit(/*overwrite=*/false);
  EXPECT_THAT(st.message(), HasSubstr("already exists"));
  EXPECT_EQ(ReadFile(dir / "out.json"), "new");
}

TEST(AtomicFileTest, AFifoIsWrittenInPlaceAndStaysAFifo) {
  TempDir dir;
  const std::string fifo = dir / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = ReadFile(fifo); });  // opening blocks until the writer opens
  {
    auto file = AtomicFile::Create(fifo);
    ASSERT_TRUE(file.ok()) << file.status().message();
    ASSERT_TRUE(file->Append("cards\n").ok());
    ASSERT_TRUE(file->Commit(/*overwrite=*/true).ok());
  }
  reader.join();
  EXPECT_EQ(got, "cards\n");
  struct stat st {};
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(EntriesIn(dir.path()), 1u);  // no temp file either
}

TEST(AtomicFileTest, ADirectoryIsRefused) {
  TempDir dir;
  auto file = AtomicFile::Create(dir.path());
  ASSERT_FALSE(file.ok());
  EXPECT_THAT(file.status().message(), HasSubstr("is a directory"));
}

}  // namespace
}  // namespace retrace::format
