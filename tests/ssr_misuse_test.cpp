// Misuse of a construct throws proto::UsageError inside the offending VP, catchable there, and
// its message names the offending call site (file and line). Left uncaught, it ends the run with
// proto::VpFailure naming the VP, and cause() is that UsageError.
#include <gtest/gtest.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "moirai/proto_runtime/errors.h"
#include "moirai/ssr/ssr.h"
#include "support/ssr_support.h"
#include "support/test_support.h"

namespace moirai::test {
namespace {

using ssr::Context;
using ssr::VpRef;

// Env is what a misuse scenario may use and what it reports back.
struct Env {
  Env(HandledProbe& p, Ticker& t) : probe(p), ticker(t) {}
  HandledProbe& probe;
  Ticker& ticker;
  unsigned line = 0;            // the offending call's line (set just before the call)
  std::string partner_what;    // a partner VP's UsageError message, when the partner fails too
  unsigned partner_line = 0;
};

struct Misuse {
  const char* name;
  std::function<void(Context&, Env&)> commit;  // runs in the offending VP; ends in the misuse
  std::string mentions;                       // a word the message must contain
  bool partner_fails = false;                 // the partner's construct fails as well
};

const ssr::MessageType<int> kParcel{"parcel"};

std::vector<Misuse> misuses() {
  return {
      {"SendToSelf",
       [](Context& me, Env& env) {
         env.line = __LINE__ + 1;
         me.send_from_to(me.self(), 1);
       },
       "itself"},
      {"ReceiveFromSelf",
       [](Context& me, Env& env) {
         env.line = __LINE__ + 1;
         me.receive_from_to<int>(me.self());
       },
       "itself"},
      {"SendToNoVp",
       [](Context& me, Env& env) {
         env.line = __LINE__ + 1;
         me.send_from_to(VpRef{}, 1);
       },
       "VP"},
      {"ReceiveFromEndedVp",
       [](Context& me, Env& env) {
         const VpRef child = me.create_vp([](Context&) {});
         while (env.probe.handled(child.id(), proto::kEndVp) == 0) env.ticker.tick(me);
         env.line = __LINE__ + 1;
         me.receive_from_to<int>(child);
       },
       "ended"},
      {"SendToEndedVp",
       [](Context& me, Env& env) {
         const VpRef child = me.create_vp([](Context&) {});
         while (env.probe.handled(child.id(), proto::kEndVp) == 0) env.ticker.tick(me);
         env.line = __LINE__ + 1;
         me.send_from_to(child, 1);
       },
       "ended"},
      {"SendOfTypeToEndedVp",
       [](Context& me, Env& env) {
         const VpRef child = me.create_vp([](Context&) {});
         while (env.probe.handled(child.id(), proto::kEndVp) == 0) env.ticker.tick(me);
         env.line = __LINE__ + 1;
         me.send_of_type_to(kParcel, child, 1);
       },
       "ended"},
      {"ReceiverWaitsOnVpThatEndsWithoutSending",
       [](Context& me, Env& env) {
         const VpRef self = me.self();
         // The child ends only once this VP's receive is parked in the runtime.
         const VpRef child = me.create_vp([&env, self](Context& c) {
           while (env.probe.handled(self.id(), ssr::detail::kReceiveFromTo) == 0) env.ticker.tick(c);
         });
         env.line = __LINE__ + 1;
         me.receive_from_to<int>(child);
       },
       "ended without sending"},
      {"SenderWaitsOnVpThatEndsWithoutReceiving",
       [](Context& me, Env& env) {
         const VpRef self = me.self();
         const VpRef child = me.create_vp([&env, self](Context& c) {
           while (env.probe.handled(self.id(), ssr::detail::kSendFromTo) == 0) env.ticker.tick(c);
         });
         env.line = __LINE__ + 1;
         me.send_from_to(child, 1);
       },
       "ended without receiving"},
      {"SendOfTypeToWaitsOnVpThatEndsWithoutReceiving",
       [](Context& me, Env& env) {
         const VpRef self = me.self();
         const VpRef child = me.create_vp([&env, self](Context& c) {
           while (env.probe.handled(self.id(), ssr::detail::kSendOfTypeTo) == 0) {
             env.ticker.tick(c);
           }
         });
         env.line = __LINE__ + 1;
         me.send_of_type_to(kParcel, child, 1);
       },
       "ended without receiving"},
      {"TypeMismatchSenderSendsDouble",
       [](Context& me, Env& env) {
         const VpRef self = me.self();
         const VpRef receiver = me.create_vp([&env, self](Context& c) {
           try {
             env.partner_line = __LINE__ + 1;
             c.receive_from_to<int>(self);
           } catch (const proto::UsageError& error) {
             env.partner_what = error.what();
           }
         });
         env.line = __LINE__ + 1;
         me.send_from_to(receiver, 2.5);
       },
       "double", /*partner_fails=*/true},
      {"TypeMismatchReceiverExpectsInt",
       [](Context& me, Env& env) {
         const VpRef self = me.self();
         const VpRef sender = me.create_vp([&env, self](Context& c) {
           try {
             env.partner_line = __LINE__ + 1;
             c.send_from_to(self, 2.5);
           } catch (const proto::UsageError& error) {
             env.partner_what = error.what();
           }
         });
         env.line = __LINE__ + 1;
         me.receive_from_to<int>(sender);
       },
       "int", /*partner_fails=*/true},
      {"PinToCoreOneBeyondTheLast",
       [](Context& me, Env& env) {
         const CoreId missing = static_cast<CoreId>(me.core_count());
         env.line = __LINE__ + 1;
         me.create_vp([](Context&) {}, ssr::CreateOptions{.name = "nowhere", .core = missing});
       },
       "core"},
      {"PinToCore99",
       [](Context& me, Env& env) {
         env.line = __LINE__ + 1;
         me.create_vp([](Context&) {}, ssr::CreateOptions{.name = "nowhere", .core = 99});
       },
       "99"},
      {"StackBelowTheMinimum",
       [](Context& me, Env& env) {
         env.line = __LINE__ + 1;
         me.create_vp([](Context&) {}, ssr::CreateOptions{.name = "tiny", .stack_size = 1024});
       },
       "1024"},
  };
}

using MisuseParam = std::tuple<std::size_t, std::size_t>;  // (cores, index into misuses())

class SsrMisuse : public ::testing::TestWithParam<MisuseParam> {
 protected:
  std::size_t cores() const { return std::get<0>(GetParam()); }
  Misuse misuse() const { return misuses().at(std::get<1>(GetParam())); }
};

// The offender catches the UsageError and carries on: the run then ends normally.
TEST_P(SsrMisuse, ThrowsUsageErrorNamingTheCallSiteInsideTheVp) {
  const Misuse m = misuse();
  HandledProbe probe;
  Ticker ticker("tick");
  Env env{probe, ticker};
  std::string what;
  bool wrong_exception = false;
  bool carried_on = false;
  ssr::RunOptions options;
  options.observer = &probe;
  run_ssr(
      cores(),
      [&](Context& ctx) {
        ticker.start(ctx);
        const VpRef seed = ctx.self();
        const VpRef offender = ctx.create_vp(
            [&, seed](Context& me) {
              try {
                m.commit(me, env);
              } catch (const proto::UsageError& error) {
                what = error.what();
              } catch (...) {
                wrong_exception = true;
              }
              me.send_from_to(seed, 1);  // constructs still work after the error
              carried_on = true;
            },
            ssr::CreateOptions{.name = "offender"});
        ctx.receive_from_to<int>(offender);
        ticker.stop(ctx);
      },
      options);
  EXPECT_FALSE(wrong_exception) << "the misuse must throw proto::UsageError";
  ASSERT_FALSE(what.empty()) << "the misuse did not throw";
  EXPECT_NE(what.find(site_of(__FILE__, env.line)), std::string::npos)
      << "the message must name the offending call site " << site_of(__FILE__, env.line)
      << ": " << what;
  EXPECT_NE(what.find(m.mentions), std::string::npos) << what;
  EXPECT_TRUE(carried_on);
  if (m.partner_fails) {
    EXPECT_NE(env.partner_what.find(site_of(__FILE__, env.partner_line)), std::string::npos)
        << "the partner's message must name its own call site: " << env.partner_what;
  }
}

// Uncaught, the UsageError ends the run as a VpFailure naming the offending VP.
TEST_P(SsrMisuse, UncaughtSurfacesAsVpFailureNamingTheVp) {
  const Misuse m = misuse();
  HandledProbe probe;
  Ticker ticker("tick");
  Env env{probe, ticker};
  VpRef offender;
  unsigned created_line = 0;
  ssr::RunOptions options;
  options.observer = &probe;
  try {
    run_ssr(
        cores(),
        [&](Context& ctx) {
          ticker.start(ctx);
          created_line = __LINE__ + 1;
          offender = ctx.create_vp([&](Context& me) { m.commit(me, env); },
                                   ssr::CreateOptions{.name = "offender"});
          ctx.receive_from_to<int>(offender);  // never satisfied: unwound when the run stops
        },
        options);
    ADD_FAILURE() << "ssr::run returned normally";
  } catch (const proto::VpFailure& failure) {
    EXPECT_EQ(failure.vp(), offender.id());
    EXPECT_EQ(failure.vp_name(), "offender");
    EXPECT_EQ(failure.created_at().line, created_line);
    const std::string what = failure.what();
    EXPECT_NE(what.find("offender"), std::string::npos) << what;
    EXPECT_NE(what.find(site_of(__FILE__, env.line)), std::string::npos) << what;
    try {
      std::rethrow_exception(failure.cause());
    } catch (const proto::UsageError& cause) {
      EXPECT_NE(std::string(cause.what()).find(site_of(__FILE__, env.line)), std::string::npos)
          << cause.what();
    } catch (...) {
      ADD_FAILURE() << "cause() is not the UsageError";
    }
  } catch (const std::exception& other) {
    ADD_FAILURE() << "ssr::run threw something other than VpFailure: " << other.what();
  }
}

std::string misuse_name(const ::testing::TestParamInfo<MisuseParam>& param_info) {
  const std::size_t cores = std::get<0>(param_info.param);
  return std::string(misuses().at(std::get<1>(param_info.param)).name) + "_" +
         (cores == kSimulatedCores ? "Sim" : "") + std::to_string(cores) +
         (cores == 1 ? "Core" : "Cores");
}

INSTANTIATE_TEST_SUITE_P(Misuses, SsrMisuse,
                         ::testing::Combine(::testing::Values(std::size_t{1}, std::size_t{2},
                                                              kSimulatedCores),
                                            ::testing::Range(std::size_t{0}, misuses().size())),
                         misuse_name);

}  // namespace
}  // namespace moirai::test
