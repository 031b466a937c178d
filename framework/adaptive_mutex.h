// A mutex that spins briefly before sleeping (glibc's adaptive pthread
// mutex). The scheduler's critical sections last a few hundred nanoseconds;
// when two workers collide there, sleeping in the kernel and being woken costs
// far more than waiting a moment. Usable with std::unique_lock and
// std::condition_variable_any. ThreadSanitizer understands it (it is a
// pthread mutex).
#ifndef RILL_FRAMEWORK_ADAPTIVE_MUTEX_H_
#define RILL_FRAMEWORK_ADAPTIVE_MUTEX_H_

#include <pthread.h>

namespace rill {

class AdaptiveMutex {
 public:
  AdaptiveMutex() {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    pthread_mutex_init(&mu_, &attr);
    pthread_mutexattr_destroy(&attr);
  }
  ~AdaptiveMutex() { pthread_mutex_destroy(&mu_); }
  AdaptiveMutex(const AdaptiveMutex&) = delete;
  AdaptiveMutex& operator=(const AdaptiveMutex&) = delete;

  void lock() { pthread_mutex_lock(&mu_); }
  void unlock() { pthread_mutex_unlock(&mu_); }
  bool try_lock() { return pthread_mutex_trylock(&mu_) == 0; }

 private:
  pthread_mutex_t mu_;
};

}  // namespace rill

#endif  // RILL_FRAMEWORK_ADAPTIVE_MUTEX_H_
