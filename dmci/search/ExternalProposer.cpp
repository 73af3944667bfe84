// Running the external proposer: a child in its own process group, its standard input fed and its standard
// output and error drained at once (poll); the group is killed at the deadline, and with dmci on SIGINT or
// SIGTERM (support/ChildGroups.h).
#include "search/ExternalProposer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <nlohmann/json.hpp>

#include "support/ChildGroups.h"

namespace dmci::search {

namespace {

// At most `n` characters of `s`, with bytes outside printable ASCII shown as \xNN.
std::string excerpt(const std::string& s, size_t n = 160) {
  std::string out;
  for (size_t k = 0; k < s.size() && out.size() < n; ++k) {
    auto c = static_cast<unsigned char>(s[k]);
    if (c >= 32 && c < 127) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return s.size() > n ? out + "..." : out;
}

struct Outcome {
  std::string out, err;
  int status = 0;
  bool timedOut = false;
  std::string startError;
};

Outcome runCommand(const std::string& command, const std::string& input, double timeoutSeconds) {
  Outcome o;
  int in[2], out[2], err[2];
  if (pipe(in) || pipe(out) || pipe(err)) {
    o.startError = std::string("cannot make pipes: ") + std::strerror(errno);
    return o;
  }
  // SIGINT and SIGTERM held from the fork until the child's group is listed: a signal then finds it and kills it.
  installChildGroupKiller();
  sigset_t held, before;
  sigemptyset(&held);
  sigaddset(&held, SIGINT);
  sigaddset(&held, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &held, &before);
  pid_t pid = fork();
  if (pid < 0) {
    o.startError = std::string("cannot fork: ") + std::strerror(errno);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    return o;
  }
  if (pid == 0) {
    setpgid(0, 0);
    for (int sig : {SIGINT, SIGTERM}) {  // dmci's handler is not the child's; a signal dmci ignores stays ignored
      struct sigaction now {};
      sigaction(sig, nullptr, &now);
      if (now.sa_handler != SIG_IGN) signal(sig, SIG_DFL);
    }
    signal(SIGPIPE, SIG_DFL);  // askProposer ignores it in dmci, not in the command
    sigprocmask(SIG_SETMASK, &before, nullptr);
    dup2(in[0], 0), dup2(out[1], 1), dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  const int slot = listChildGroup(pid);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  close(in[0]), close(out[1]), close(err[1]);
  fcntl(in[1], F_SETFL, O_NONBLOCK);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  size_t written = 0;
  int inFd = in[1];
  if (input.empty()) close(inFd), inFd = -1;
  bool outOpen = true, errOpen = true;
  while (outOpen || errOpen) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      o.timedOut = true;
      break;
    }
    pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {inFd, POLLOUT, 0}};
    fds[0].fd = outOpen ? out[0] : -1, fds[1].fd = errOpen ? err[0] : -1;
    if (poll(fds, 3, static_cast<int>(std::min<long long>(left.count(), 100))) < 0 && errno != EINTR) break;
    char buf[65536];
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n > 0) (k == 0 ? o.out : o.err).append(buf, static_cast<size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) (k == 0 ? outOpen : errOpen) = false;
    }
    if (inFd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(inFd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // the child closed its input
      if (written == input.size()) close(inFd), inFd = -1;
    }
  }
  if (inFd >= 0) close(inFd);
  close(out[0]), close(err[0]);
  int status = 0;
  while (!o.timedOut) {  // its output is closed: wait for the exit, until the deadline
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) o.timedOut = true;
    if (!o.timedOut) usleep(2000);
  }
  kill(-pid, SIGKILL);  // past the deadline, or anything the command left running in its group
  if (o.timedOut)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  unlistChildGroup(slot);
  o.status = status;
  return o;
}

}  // namespace

ProposerReply askProposer(const std::string& command, const std::string& prompt, double timeoutSeconds) {
  ProposerReply r;
  auto began = std::chrono::steady_clock::now();
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);  // a command that exits without reading must not end the search
  Outcome o = runCommand(command, prompt, timeoutSeconds);
  sigaction(SIGPIPE, &old, nullptr);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  while (!o.err.empty() && std::isspace(static_cast<unsigned char>(o.err.back()))) o.err.pop_back();
  std::string stderrTail =
      o.err.empty()
          ? ""
          : " (its standard error: " + excerpt(o.err.substr(o.err.size() > 400 ? o.err.size() - 400 : 0)) + ")";
  if (!o.startError.empty()) {
    r.error = "the proposer could not start: " + o.startError;
  } else if (o.timedOut) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", timeoutSeconds);
    r.error = std::string("the proposer did not answer within ") + buf + " s and was killed";
  } else if (WIFSIGNALED(o.status)) {
    r.error = "the proposer was killed by signal " + std::to_string(WTERMSIG(o.status)) + stderrTail;
  } else if (WEXITSTATUS(o.status) != 0) {
    r.error = "the proposer exited with status " + std::to_string(WEXITSTATUS(o.status)) + stderrTail;
  }
  if (!r.error.empty()) return r;
  double seconds = r.seconds;
  r = parseProposerOutput(o.out);
  r.seconds = seconds;
  return r;
}

ProposerReply parseProposerOutput(const std::string& out) {
  ProposerReply r;
  auto reply = nlohmann::json::parse(out, nullptr, false);
  if (reply.is_discarded() || !reply.is_array()) {
    r.error = "the proposer's output is not a JSON array of program strings: '" + excerpt(out) + "'";
    return r;
  }
  for (const auto& item : reply) {
    if (item.is_string())
      r.programs.push_back(item.get<std::string>());
    else
      r.rejected.push_back("not a string: " +
                           excerpt(item.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace)));
  }
  return r;
}

}  // namespace dmci::search
