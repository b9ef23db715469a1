// The two caches that make reloading an unchanged set instant: parsed sets by
// their bytes, and compiled engines by set and options. Both hold their values
// weakly: they find what a service still uses (the version it is serving while
// it reloads the same bytes) and never keep a released set or engine alive.
// (Compiled JIT code is cached a third time, piece by piece, by its content
// and bounded in bytes: backend/jit/compiler.h; that is what lets an edited
// set recompile only the pieces its edits touch.)
#ifndef CALCJIT_RUNTIME_CACHES_H_
#define CALCJIT_RUNTIME_CACHES_H_

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace calcjit::internal {

// A small least-recently-used map from string keys to objects someone else
// owns, thread-safe. An entry whose object has been released is dropped.
template <typename Value>
class WeakCache {
 public:
  explicit WeakCache(std::size_t capacity) : capacity_(capacity) {}

  std::shared_ptr<const Value> Find(const std::string& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      std::shared_ptr<const Value> value = it->second.lock();
      if (value == nullptr) {
        it = entries_.erase(it);
      } else if (it->first == key) {
        entries_.splice(entries_.begin(), entries_, it);
        return value;
      } else {
        ++it;
      }
    }
    return nullptr;
  }

  void Add(std::string key, const std::shared_ptr<const Value>& value) {
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.emplace_front(std::move(key), value);
    if (entries_.size() > capacity_) entries_.pop_back();
  }

 private:
  std::mutex mutex_;
  std::size_t capacity_;
  std::list<std::pair<std::string, std::weak_ptr<const Value>>> entries_;
};

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_CACHES_H_
