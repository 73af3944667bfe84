// A pthread with a 1 GiB stack: std::thread cannot choose its stack size.
#include "support/BigStack.h"

#include <pthread.h>

#include <exception>
#include <stdexcept>
#include <string>

namespace dmci {
namespace {

struct Job {
  const std::function<void()>* body;
  std::exception_ptr failure;
};

void* runJob(void* arg) {
  auto* job = static_cast<Job*>(arg);
  try {
    (*job->body)();
  } catch (...) {
    job->failure = std::current_exception();  // carried to the caller, not swallowed
  }
  return nullptr;
}

}  // namespace

void runWithBigStack(const std::function<void()>& body, size_t bytes) {
  Job job{&body, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  int rc = pthread_attr_setstacksize(&attr, bytes);
  pthread_t thread;
  if (rc == 0) rc = pthread_create(&thread, &attr, runJob, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start a thread with a large stack (error " + std::to_string(rc) + ")");
  pthread_join(thread, nullptr);
  if (job.failure) std::rethrow_exception(job.failure);
}

}  // namespace dmci
