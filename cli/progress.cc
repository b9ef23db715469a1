#include "cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "cli/csv_input.h"

namespace calcjit::cli {

namespace {

// "0:35", "1:02:03".
std::string Duration(double seconds) {
  const auto total = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60,
                  total % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
  }
  return text;
}

}  // namespace

Progress::Progress(bool forced, std::optional<std::uint64_t> total_bytes)
    : terminal_(isatty(STDERR_FILENO) == 1),
      total_bytes_(total_bytes),
      start_(Clock::now()),
      last_(start_) {
  enabled_ = forced || terminal_;
}

void Progress::Add(std::size_t items, std::uint64_t bytes_done) {
  items_ += items;
  bytes_done_ = bytes_done;
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  // Every 250 ms; forced (a log, a test) the first update at once too. A
  // terminal sees nothing of a run shorter than that.
  const bool first_forced = !shown_ && !terminal_;
  if (!first_forced && now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  Print(false);
}

void Progress::Finish() {
  if (enabled_ && (shown_ || !terminal_)) Print(true);  // forced: always a last line
}

void Progress::Print(bool last) {
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  std::string line = "calcjit eval: ";
  if (total_bytes_ && *total_bytes_ > 0) {
    const double done =
        std::min(1.0, static_cast<double>(bytes_done_) / static_cast<double>(*total_bytes_));
    line +=
        std::to_string(static_cast<int>(done * 100)) + "% of " + ShowBytes(*total_bytes_) + ", ";
  }
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.2f M items/s",
                seconds > 0 ? static_cast<double>(items_) / seconds / 1e6 : 0.0);
  line += std::to_string(items_) + " items, " + rate;
  if (last) {
    line += ", " + Duration(seconds) + " in all";
  } else if (total_bytes_ && bytes_done_ > 0 && bytes_done_ < *total_bytes_) {
    const double left = seconds * static_cast<double>(*total_bytes_ - bytes_done_) /
                        static_cast<double>(bytes_done_);
    line += ", " + Duration(left) + " left";
  }
  // On a terminal the line is rewritten (padded over a longer one before it).
  if (terminal_) {
    std::fprintf(stderr, "\r%-79s%s", line.c_str(), last ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace calcjit::cli
