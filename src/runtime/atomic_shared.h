// A shared_ptr that threads load and replace concurrently: readers get the
// current object and keep it alive as long as they hold it.
//
// It is std::atomic<std::shared_ptr> (readers take no mutex and never wait
// for a writer's work: the pointer swap is a few instructions). libstdc++ 12
// guards that pointer with a lock bit that ThreadSanitizer does not see, so
// under ThreadSanitizer only, a mutex stands in (google/sanitizers#1558), and
// TSan checks everything around it.
#ifndef CALCJIT_RUNTIME_ATOMIC_SHARED_H_
#define CALCJIT_RUNTIME_ATOMIC_SHARED_H_

#include <atomic>
#include <memory>
#include <mutex>

namespace calcjit::internal {

template <typename T>
class AtomicShared {
 public:
#if defined(__SANITIZE_THREAD__)
  std::shared_ptr<T> load() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return value_;
  }
  void store(std::shared_ptr<T> value) {
    const std::lock_guard<std::mutex> lock(mutex_);
    value_.swap(value);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<T> value_;
#else
  std::shared_ptr<T> load() const {
    return value_.load();
  }
  void store(std::shared_ptr<T> value) {
    value_.store(std::move(value));
  }

 private:
  std::atomic<std::shared_ptr<T> > value_;
#endif
};

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_ATOMIC_SHARED_H_
