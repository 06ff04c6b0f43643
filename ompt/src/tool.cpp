// libmoirai_ompt.so's entry: LLVM's OpenMP runtime calls ompt_start_tool when the library is named
// by OMP_TOOL_LIBRARIES; the tool then records the run into the trace the environment names
// (tool_config.h) until the runtime shuts down.
#include <omp-tools.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "moirai/instrument/trace_recorder.h"
#include "openmp_constructs.h"
#include "openmp_recording.h"
#include "tool_config.h"

namespace {

using moirai::ompt::OpenMpRecording;

// The tool's state is never destroyed: libomp calls back until its own library destructor runs,
// which may come after this library's static destructors. finalize writes the trace before.
struct ToolState {
  moirai::ompt::ToolConfig config;
  std::string runtime_version;
  std::unique_ptr<moirai::instrument::TraceRecorder> recorder;
  std::unique_ptr<OpenMpRecording> recording;
};
ToolState* tool = nullptr;

OpenMpRecording& rec() { return *tool->recording; }

void on_thread_begin(ompt_thread_t type, ompt_data_t*) { rec().thread_begin(type); }
void on_thread_end(ompt_data_t*) { rec().thread_end(); }
void on_parallel_begin(ompt_data_t* encountering, const ompt_frame_t*, ompt_data_t* parallel, unsigned requested,
                       int, const void* ra) {
  rec().parallel_begin(encountering, parallel, requested, ra);
}
void on_parallel_end(ompt_data_t* parallel, ompt_data_t* encountering, int, const void*) {
  rec().parallel_end(parallel, encountering);
}
void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task, unsigned actual,
                      unsigned index, int flags) {
  rec().implicit_task(endpoint, parallel, task, actual, index, flags);
}
void on_task_create(ompt_data_t* encountering, const ompt_frame_t*, ompt_data_t* created, int flags, int,
                    const void* ra) {
  rec().task_create(encountering, created, flags, ra);
}
void on_task_dependence(ompt_data_t* source, ompt_data_t* sink) { rec().task_dependence(source, sink); }
void on_dependences(ompt_data_t* task, const ompt_dependence_t*, int count) { rec().dependences(task, count); }
void on_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  rec().task_schedule(prior, status, next);
}
void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel,
                    ompt_data_t* task, const void* ra) {
  rec().sync_region(kind, endpoint, parallel, task, ra);
}
void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t* task,
                         const void* ra) {
  rec().sync_region_wait(kind, endpoint, task, ra);
}
void on_mutex_acquire(ompt_mutex_t kind, unsigned, unsigned, ompt_wait_id_t wait_id, const void* ra) {
  rec().mutex_acquire(kind, wait_id, ra);
}
void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* ra) {
  rec().mutex_acquired(kind, wait_id, ra);
}
void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* ra) {
  rec().mutex_released(kind, wait_id, ra);
}
void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*, std::uint64_t,
             const void* ra) {
  rec().work(kind, endpoint, ra);
}
void on_dispatch(ompt_data_t*, ompt_data_t*, ompt_dispatch_t, ompt_data_t) { rec().dispatch(); }

int initialize(ompt_function_lookup_t lookup, int /*initial_device*/, ompt_data_t* /*tool_data*/) {
  try {
    moirai::instrument::RecorderOptions options;
    options.path = tool->config.trace_path;
    options.counters = tool->config.counters;
    options.command_line = tool->config.command_line;
    options.metadata = tool->config.metadata;
    options.metadata.emplace_back("omp_runtime", tool->runtime_version);
    tool->recorder = std::make_unique<moirai::instrument::TraceRecorder>(std::move(options));
    tool->recording = std::make_unique<OpenMpRecording>(*tool->recorder, tool->config.cores, tool->config.task_cost);
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "moirai-ompt: not recording: %s\n", failure.what());
    return 0;
  }
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  std::string missing;
  auto want = [&](ompt_callbacks_t event, ompt_callback_t callback, const char* name) {
    const ompt_set_result_t result = set_callback(event, callback);
    if (result != ompt_set_always) missing += std::string(missing.empty() ? "" : ",") + name;
  };
  want(ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(on_thread_begin), "thread_begin");
  want(ompt_callback_thread_end, reinterpret_cast<ompt_callback_t>(on_thread_end), "thread_end");
  want(ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(on_parallel_begin), "parallel_begin");
  want(ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(on_parallel_end), "parallel_end");
  want(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(on_implicit_task), "implicit_task");
  want(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(on_task_create), "task_create");
  want(ompt_callback_task_dependence, reinterpret_cast<ompt_callback_t>(on_task_dependence), "task_dependence");
  want(ompt_callback_dependences, reinterpret_cast<ompt_callback_t>(on_dependences), "dependences");
  want(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(on_task_schedule), "task_schedule");
  want(ompt_callback_sync_region, reinterpret_cast<ompt_callback_t>(on_sync_region), "sync_region");
  want(ompt_callback_sync_region_wait, reinterpret_cast<ompt_callback_t>(on_sync_region_wait), "sync_region_wait");
  want(ompt_callback_mutex_acquire, reinterpret_cast<ompt_callback_t>(on_mutex_acquire), "mutex_acquire");
  want(ompt_callback_mutex_acquired, reinterpret_cast<ompt_callback_t>(on_mutex_acquired), "mutex_acquired");
  want(ompt_callback_mutex_released, reinterpret_cast<ompt_callback_t>(on_mutex_released), "mutex_released");
  want(ompt_callback_work, reinterpret_cast<ompt_callback_t>(on_work), "work");
  want(ompt_callback_dispatch, reinterpret_cast<ompt_callback_t>(on_dispatch), "dispatch");
  if (!missing.empty()) tool->recorder->note_closing("ompt_missing_callbacks", missing);
  tool->recorder->run_start(moirai::ompt::openmp_language(), tool->config.cores);
  return 1;
}

void finalize(ompt_data_t* /*tool_data*/) {
  if (!tool->recorder) return;
  tool->recording->finish();
  const moirai::instrument::RecorderStats stats = tool->recorder->finish();
  const moirai::ompt::ToolConfig& config = tool->config;
  if (!stats.stopped.empty()) {
    std::fprintf(stderr, "moirai-ompt: the trace %s stops early: %s\n", config.trace_path.c_str(), stats.stopped.c_str());
  } else if (!config.quiet) {
    std::fprintf(stderr, "moirai-ompt: recorded %llu records into %s\n",
                 static_cast<unsigned long long>(stats.records), config.trace_path.c_str());
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(
    unsigned int /*omp_version*/, const char* runtime) {
  static ompt_start_tool_result_t result{initialize, finalize, {0}};
  std::string problem;
  tool = new ToolState;
  tool->config = moirai::ompt::tool_config(problem);
  if (tool->config.declined || !problem.empty()) {
    // A tool that declines is never initialised nor finalised: nothing else frees its state.
    if (!problem.empty()) std::fprintf(stderr, "moirai-ompt: not recording: %s\n", problem.c_str());
    delete tool;
    tool = nullptr;
    return nullptr;
  }
  tool->runtime_version = runtime != nullptr ? runtime : "unknown";
  return &result;
}
