#include "moirai/vss/context.h"

#include "moirai/proto_runtime/request.h"
#include "moirai/proto_runtime/virtual_processor.h"
#include "task.h"

namespace moirai::vss {

CoreId Context::core() const noexcept { return vp_.last_core(); }

const std::string& Context::task_name() const noexcept { return task_.name; }

void Context::call(detail::Construct kind, void* payload, const CallSite& site) {
  proto::Request request;
  request.kind = kind;
  request.payload = payload;
  request.site = site;
  // false only while a stopped run unwinds this task (a destructor made the call): nothing to do.
  (void)vp_.call_runtime(request);
}

void Context::submit(TaskBody body, std::initializer_list<Access> accesses, TaskOptions options,
                     Where where) {
  submit_list(body, accesses.begin(), accesses.size(), options, where);
}

void Context::submit(TaskBody body, const std::vector<Access>& accesses, TaskOptions options,
                     Where where) {
  submit_list(body, accesses.data(), accesses.size(), options, where);
}

void Context::submit_list(TaskBody& body, const Access* accesses, std::size_t count,
                          const TaskOptions& options, const Where& where) {
  detail::Submit submit{&body, accesses, count, &options};
  call(detail::kSubmit, &submit, CallSite::from(where));
  submitted_ = true;
}

void Context::taskwait(Where where) {
  detail::Taskwait wait{false};
  call(detail::kTaskwait, &wait, CallSite::from(where));
  submitted_ = false;
}

void Context::wait_for_children(const CallSite& site) {
  detail::Taskwait wait{true};
  call(detail::kTaskwait, &wait, site);
  submitted_ = false;
}

void Context::wait_on(const Access& datum, const Where& where) {
  detail::TaskwaitOn wait{&datum};
  call(detail::kTaskwaitOn, &wait, CallSite::from(where));
}

void Context::register_matrix(const void* matrix, std::size_t rows, std::size_t cols,
                              const std::string& name, const Where& where) {
  detail::RegisterBlocks call_payload{matrix, rows, cols, &name};
  call(detail::kRegisterBlocks, &call_payload, CallSite::from(where));
}

void Context::phase_begin(const char* name) { vp_.mark_phase(name, true); }

void Context::phase_end(const char* name) { vp_.mark_phase(name, false); }

void Context::charge_work(std::uint64_t cycles) noexcept { vp_.charge_work(cycles); }

}  // namespace moirai::vss
