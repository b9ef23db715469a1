// The progress line of a long `calcjit eval` on stderr: items so far and
// their rate, and, when the input's size is known (a regular file), how much
// of it is done and the time left at the rate so far:
//   calcjit eval: 42% of 1.3 GiB, 1200000 items, 2.10 M items/s, 0:35 left
// On a terminal the line is rewritten in place every 250 ms (a shorter run
// shows nothing); forced on elsewhere (--progress), the first update and then
// one every 250 ms are lines of their own. A last line says what was done.
#ifndef CALCJIT_CLI_PROGRESS_H_
#define CALCJIT_CLI_PROGRESS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace calcjit::cli {

class Progress {
 public:
  // `forced`: print even when stderr is no terminal. `total_bytes`: the
  // input's size, when known.
  Progress(bool forced, std::optional<std::uint64_t> total_bytes);

  // `items` more were evaluated; `bytes_done` of the input are behind them.
  void Add(std::size_t items, std::uint64_t bytes_done);
  // The last line (when anything was shown, or when forced).
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  void Print(bool last);

  bool enabled_;
  bool terminal_;
  std::optional<std::uint64_t> total_bytes_;
  Clock::time_point start_;
  Clock::time_point last_;
  bool shown_ = false;
  std::size_t items_ = 0;
  std::uint64_t bytes_done_ = 0;
};

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_PROGRESS_H_
