// plot_runner.cc: see plot_runner.h.
#include "experiments/plot_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

namespace lqcd::experiments {

namespace fs = std::filesystem;

fs::path UserPath(const std::string& path) {
  const fs::path p(path);
  if (p.is_absolute()) return p;
  if (const char* base = std::getenv("BUILD_WORKING_DIRECTORY"); base != nullptr && *base != '\0') {
    return fs::path(base) / p;
  }
  return fs::current_path() / p;
}

fs::path FindPlotScript(const std::string& name, const std::string& explicit_path, const char* argv0) {
  if (!explicit_path.empty()) return UserPath(explicit_path);
  std::vector<fs::path> candidates;
  if (const char* r = std::getenv("RUNFILES_DIR"); r != nullptr) candidates.push_back(fs::path(r) / "lqcd");
  candidates.push_back(fs::path(std::string(argv0) + ".runfiles") / "lqcd");
  candidates.push_back(fs::current_path());
  for (const fs::path& root : candidates) {
    const fs::path script = root / "experiments" / name;
    if (fs::exists(script)) return script;
  }
  throw std::runtime_error("cannot find experiments/" + name + " in the runfiles; pass --plot-script or --no-plot");
}

int RunPython(const fs::path& script, const std::vector<std::string>& args) {
  const std::string python = "/usr/bin/python3";
  std::vector<std::string> argv_strings{python, script.string()};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  const std::string pythonpath = script.parent_path().parent_path().string();
  std::cout.flush();
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed while starting the plot");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed while starting the plot");
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[1]);
    setenv("PYTHONPATH", pythonpath.c_str(), 1);
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    execv(python.c_str(), argv.data());
    std::perror("execv /usr/bin/python3");
    _exit(127);
  }
  close(fds[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      std::cout.write(buffer, n);
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("waitpid failed for the plot process");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace lqcd::experiments
