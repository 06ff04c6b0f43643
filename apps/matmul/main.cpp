// matmul: the matrix multiply of the paper's section 3.1 on the SSR runtime.
//
// Times C = A x B cut into --pieces row blocks, one worker VP per block, placed on cores by
// --placement: the program whose tuning the paper walks through in section 3.4. Try the three
// placements on the same size and compare the times; --check verifies C against a plain
// triple-loop multiply.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "matmul.h"
#include "moirai/program/app.h"

namespace {

constexpr std::size_t kMaxSize = 4096;
// Beyond any machine's core count; --cores itself is checked against this machine.
constexpr std::int64_t kMaxCoreIndex = 4095;

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace moirai;
  std::size_t size = matmul::kDefaultSize;
  std::size_t pieces = 0;  // 0: not given, matmul::default_pieces
  std::string placement = std::string(matmul::kPlacementNames[0]);
  std::int64_t results_core = -1;  // -1: not given, the last core
  std::uint64_t seed = 1;
  bool check = false;
  bool progress = false;
  std::string work_scale = "fitted";

  program::App app("matmul",
                   "Multiplies two random N x N matrices with SSR VPs as in the paper's section "
                   "3.1:\na divider VP cuts C = A x B into row-block pieces, one worker VP per "
                   "piece,\na singleton copy-transposes B once, and a results VP collects the "
                   "pieces.",
                   /*declares_work=*/true);
  program::Flags& flags = app.flags();
  flags.integer("size", size, 1, kMaxSize, "N, the matrices are N x N");
  flags.integer("pieces", pieces, 1, kMaxSize, "row-block pieces, one worker VP each",
                "4 x cores, at most --size");
  flags.choice("placement", placement,
               {std::begin(matmul::kPlacementNames), std::end(matmul::kPlacementNames)},
               "how workers are pinned to cores");
  flags.integer("results-core", results_core, 0, kMaxCoreIndex,
                "core the results VP is pinned to", "the last core");
  flags.choice("work-scale", work_scale, {"fitted", "walkthrough"},
               "the work each unit declares on a simulated machine: fitted (this project's 2-core VM, "
               "apps/matmul/matmul.h) or walkthrough (the declarations docs/tuning-walkthrough.md was "
               "written for, with docs/walkthrough/walkthrough.model)");
  flags.integer("seed", seed, 0, UINT64_MAX, "seeds the random A and B");
  flags.toggle("check", check, "compare C with a plain triple-loop multiply");
  flags.toggle("progress", progress,
               "print a line as each piece reaches the results VP (flushed at once, so a pipe "
               "reads it live)");
  flags.check([&] {
    if (pieces > size) {
      throw program::FlagError("--pieces " + std::to_string(pieces) +
                               ": more pieces than rows (--size " + std::to_string(size) + ")");
    }
    if (results_core >= static_cast<std::int64_t>(app.cores())) {
      throw program::FlagError("--results-core " + std::to_string(results_core) +
                               ": must be below --cores " + std::to_string(app.cores()));
    }
  });

  return app.main(argc, argv, [&] {
    matmul::MatmulConfig config;
    config.size = size;
    config.pieces = pieces;
    config.placement = *matmul::parse_placement(placement);
    if (results_core >= 0) config.results_core = static_cast<moirai::CoreId>(results_core);
    config.seed = seed;
    if (work_scale == "walkthrough") config.work = matmul::kWalkthroughScale;
    config.observer = app.observer();
    config.check = check;
    if (progress) {
      config.on_piece = [pieces = config.pieces != 0 ? config.pieces
                                                     : matmul::default_pieces(app.machine().core_count(), size)](
                            std::size_t piece, std::size_t received, moirai::CoreId core, double seconds) {
        // stdout is a pipe when another program follows the run: flush each line as it is made.
        std::cout << "piece " << piece << " of " << pieces << " done at " << format("%.3f", seconds)
                  << " s: worker " << piece << " on core " << core << ", " << received << " received"
                  << std::endl;
      };
    }
    const matmul::MatmulResult result = matmul::run_matmul(app.machine(), config);
    app.finish();

    std::cout << "size: " << result.size << '\n'
              << "pieces: " << result.pieces << '\n'
              << "cores: " << result.cores << '\n'
              << "placement: " << matmul::placement_name(result.placement) << '\n'
              << "results core: " << result.results_core << '\n'
              << "time: " << format("%.4f", result.seconds) << " s\n"
              << "GFLOP/s: " << format("%.3f", result.gflops) << '\n'
              << "pieces received: " << result.pieces_received << " (checksum "
              << format("%.6g", result.checksum) << ")\n"
              << "copy-transposes: " << result.transposes << '\n'
              << "worker cores:";
    for (const moirai::CoreId core : result.piece_cores) std::cout << ' ' << core;
    std::cout << '\n';
    if (!result.max_error) {
      std::cout << "check: not requested (use --check)\n";
      return 0;
    }
    if (!result.check_passed) {
      std::cout << "check: FAILED (max error " << format("%.3g", *result.max_error)
                << ", tolerance " << format("%.3g", matmul::check_tolerance(result.size))
                << ")\n";
      return 1;
    }
    std::cout << "check: ok (max error " << format("%.3g", *result.max_error) << ")\n";
    return 0;
  });
}
