// Configurations the machine or the runtime cannot honour throw proto::ConfigError.
#include <gtest/gtest.h>

#include <string>

#include "moirai/proto_runtime/errors.h"
#include "moirai/proto_runtime/real_machine.h"
#include "moirai/proto_runtime/runtime.h"
#include "support/fork_join.h"

namespace moirai::test {
namespace {

TEST(RealMachineConfig, MoreCoresThanProcessingUnitsThrows) {
  try {
    proto::RealMachine machine(99);
    ADD_FAILURE() << "RealMachine(99) was accepted on a machine with "
                  << proto::RealMachine::available_cores() << " processing units";
  } catch (const proto::ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("99"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(proto::RealMachine::available_cores())), std::string::npos)
        << "the message should say how many the machine has: " << what;
  }
}

TEST(RealMachineConfig, OneMoreThanAvailableThrows) {
  EXPECT_THROW(proto::RealMachine(proto::RealMachine::available_cores() + 1), proto::ConfigError);
}

TEST(RealMachineConfig, ZeroMeansEveryProcessingUnit) {
  proto::RealMachine machine(0);
  EXPECT_EQ(machine.core_count(), proto::RealMachine::available_cores());
  EXPECT_GE(machine.core_count(), 1u);
}

TEST(RealMachineConfig, DescribesItsCores) {
  proto::RealMachine machine(1);
  const std::string text = machine.describe_core(0);
  EXPECT_NE(text.find(std::to_string(machine.pu_os_index(0))), std::string::npos) << text;
}

TEST(RuntimeConfig, StackBelowTheMinimumThrows) {
  proto::RealMachine machine(1);
  fj::ForkJoin language;
  try {
    proto::Runtime runtime(machine, language, proto::RuntimeConfig{1024, nullptr});
    ADD_FAILURE() << "a 1 KiB default stack was accepted";
  } catch (const proto::ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("1024"), std::string::npos) << error.what();
  }
  EXPECT_THROW(proto::Runtime(machine, language, proto::RuntimeConfig{16 * 1024 - 1, nullptr}),
               proto::ConfigError);
  EXPECT_NO_THROW(proto::Runtime(machine, language, proto::RuntimeConfig{16 * 1024, nullptr}));
}

}  // namespace
}  // namespace moirai::test
