#include "atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "error.h"

namespace softalign::convert {

void write_file_atomically(const std::string& path, const uint8_t* data, size_t size) {
  auto fail = [&](int err) { return Error("cannot write " + path + ": " + std::strerror(err)); };

  std::string tmpl = path + ".tmp-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw fail(errno);

  int err = 0;
  // mkstemp makes the file 0600; give it the usual 0666 & ~umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) err = errno;
  size_t done = 0;
  while (!err && done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
    } else {
      done += static_cast<size_t>(n);
    }
  }
  if (!err && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && std::rename(name.data(), path.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(name.data());
    throw fail(err);
  }
}

}  // namespace softalign::convert
