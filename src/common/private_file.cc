#include "common/private_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tidepool {
namespace {

Status OsError(const std::string& what, const std::string& path) {
  return UnavailableError(what + " " + path + ": " + std::strerror(errno));
}

// mkdir -p with mode 0700 for the folders it makes.
Status MakeParents(const std::filesystem::path& dir) {
  if (dir.empty() || std::filesystem::is_directory(dir)) return OkStatus();
  if (Status s = MakeParents(dir.parent_path()); !s.ok()) return s;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return OsError("mkdir", dir.string());
  return OkStatus();
}

}  // namespace

Status WritePrivateFile(const std::string& path, std::string_view content) {
  const std::filesystem::path p(path);
  if (Status s = MakeParents(p.parent_path()); !s.ok()) return s;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  (void)::unlink(tmp.c_str());  // a leftover of an earlier crash of this pid number
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return OsError("create", tmp);
  // The umask cannot widen 0600, but be explicit about the mode the file ends with.
  if (::fchmod(fd, 0600) != 0) {
    Status s = OsError("chmod", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = OsError("write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    Status s = OsError("close", tmp);
    ::unlink(tmp.c_str());
    return s;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = OsError("rename to", path);
    ::unlink(tmp.c_str());
    return s;
  }
  return OkStatus();
}

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    std::string reason = std::strerror(err == 0 ? ENOENT : err);
    if (!reason.empty())
      reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    const std::string msg = "open " + path + ": " + reason;
    if (err == ENOENT || err == 0) return NotFoundError(msg);
    if (err == EACCES) return Status(StatusCode::kPermissionDenied, msg);
    return UnavailableError(msg);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tidepool
