#include "kubelet/pod_lifecycle.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::kubelet {
namespace {

using std::chrono::seconds;

struct RunCase {
  std::string name;
  std::vector<std::string> command, args;
  std::optional<Duration> run;  // nullopt: until deleted
  int32_t exit_code = 0;
};

TEST(PodLifecycleTest, RunTimeAndExitCodeOfAContainerComeFromItsCommand) {
  const std::vector<RunCase> cases = {
      {"image entrypoint", {}, {}, std::nullopt},
      {"a server", {"nginx", "-g", "daemon off;"}, {}, std::nullopt},
      {"an interactive shell", {}, {"sh"}, std::nullopt},
      {"sleep", {"sleep", "3600"}, {}, seconds(3600)},
      {"sleep in a script", {"/bin/bash", "-c", "sleep 3600"}, {}, seconds(3600)},
      {"sleep infinity", {"sleep", "infinity"}, {}, std::nullopt},
      {"sleeps add up, exit code", {"sh", "-c", "sleep 60; sleep 1m; exit 3"}, {}, seconds(120), 3},
      // kubectl create job/cronjob/run ... -- echo hi: ends at once.
      {"echo", {"echo", "hi"}, {}, seconds(0)},
      {"kubectl run -- sh -c", {}, {"sh", "-c", "echo boom; exit 1"}, seconds(0), 1},
      {"date and echo",
       {"/bin/sh", "-c", "date; echo Hello from the Kubernetes cluster"},
       {},
       seconds(0)},
      {"nvidia-smi", {"nvidia-smi"}, {}, seconds(0)},
      {"false fails", {"sh", "-c", "echo x && false"}, {}, seconds(0), 1},
      {"false then true", {"sh", "-c", "false; true"}, {}, seconds(0), 0},
      {"echo then sleep", {"sh", "-c", "echo start; sleep 5; echo done"}, {}, seconds(5)},
      {"a loop runs until deleted",
       {"sh", "-c", "while true; do echo hi; sleep 5; done"},
       {},
       std::nullopt},
      {"until loop", {"bash", "-c", "until false; do sleep 1; done"}, {}, std::nullopt},
      // Redirections, quotes and env (the review's cases).
      {"redirect to stderr", {}, {"sh", "-c", "echo boom >&2; exit 1"}, seconds(0), 1},
      {"redirects and &&", {"sh", "-c", "nvidia-smi >/dev/null 2>&1 && echo ok"}, {}, seconds(0)},
      {"&> and >>", {"bash", "-c", "date &>/tmp/log; echo x >> /tmp/log"}, {}, seconds(0)},
      {"separators in quotes", {"sh", "-c", "echo \"build; test & run\""}, {}, seconds(0)},
      {"sleep in an echo's text", {"sh", "-c", "echo 'time to sleep now'"}, {}, seconds(0)},
      {"nothing after exit", {"sh", "-c", "echo x; exit 1; python a.py"}, {}, seconds(0), 1},
      {"env with a program", {"/usr/bin/env", "python3", "-m", "http.server"}, {}, std::nullopt},
      {"env NAME=VALUE program", {"env", "PORT=80", "node", "server.js"}, {}, std::nullopt},
      {"env alone", {"env"}, {}, seconds(0)},
      {"env NAME=VALUE echo", {"env", "A=1", "echo", "hi"}, {}, seconds(0)},
      {"nvidia-smi looping", {"nvidia-smi", "-l", "5"}, {}, std::nullopt},
      {"nvidia-smi dmon", {"nvidia-smi", "dmon"}, {}, std::nullopt},
      {"until a condition: its sleeps",
       {"sh", "-c", "until nslookup db; do sleep 2; done; echo ready"},
       {},
       seconds(2)},
      {"sleep of unknown length", {"sh", "-c", "echo start; sleep $DELAY"}, {}, std::nullopt},
      {"/usr/bin/false", {"/usr/bin/false"}, {}, seconds(0), 1},
      {"while :", {"sh", "-c", "while :; do date; sleep 1; done"}, {}, std::nullopt},
      // The second review's cases.
      {"a comment with an apostrophe",
       {"sh", "-c", "# don't fail\necho hi\nexit 3"},
       {},
       seconds(0),
       3},
      {"a comment line", {"sh", "-c", "# print\necho hi"}, {}, seconds(0)},
      {"|| exit is conditional",
       {"sh", "-c", "echo start || exit 1; sleep 30"},
       {},
       seconds(30),
       0},
      {"&& exit", {"sh", "-c", "echo x && exit 4"}, {}, seconds(0), 4},
      {"sh -ec", {"sh", "-ec", "echo hi"}, {}, seconds(0)},
      {"bash -euo pipefail -c",
       {"bash", "-euo", "pipefail", "-c", "echo hi; exit 2"},
       {},
       seconds(0),
       2},
      {"an escaped newline", {"sh", "-c", "echo a && \\\n echo b"}, {}, seconds(0)},
      {"exit 256", {"sh", "-c", "exit 256"}, {}, seconds(0), 0},
      {"nvidia-smi -lgc locks clocks", {"nvidia-smi", "-lgc", "1500"}, {}, seconds(0)},
      {"nvidia-smi -lms loops", {"nvidia-smi", "-lms", "500"}, {}, std::nullopt},
      // && and || run a command by the last status (false's 1, any other's 0).
      {"false && echo: false's status", {"sh", "-c", "false && echo x"}, {}, seconds(0), 1},
      {"false || exit 3", {"sh", "-c", "false || exit 3"}, {}, seconds(0), 3},
      {"true || sleep: no sleep", {"sh", "-c", "true || sleep 60"}, {}, seconds(0)},
      {"false && sleep; sleep", {"sh", "-c", "false && sleep 60; sleep 5"}, {}, seconds(5)},
      {"a pipe is no condition", {"sh", "-c", "false | echo x && exit 2"}, {}, seconds(0), 2},
      // A program of unknown length: until deleted (or the duration annotation).
      {"perl", {"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}, {}, std::nullopt},
      {"a script with a program", {"sh", "-c", "echo go; python train.py"}, {}, std::nullopt},
  };
  for (const RunCase& c : cases) {
    SCOPED_TRACE(c.name);
    api::Pod pod;
    api::Container ctr;
    ctr.name = "c";
    ctr.command = c.command;
    ctr.args = c.args;
    pod.spec.containers.push_back(ctr);
    StatusOr<std::optional<Duration>> run = ContainerRunTime(pod, ctr);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(*run, c.run);
    StatusOr<int32_t> code = ContainerExitCode(pod, ctr);
    ASSERT_TRUE(code.ok());
    EXPECT_EQ(*code, c.exit_code);
  }
}

TEST(PodLifecycleTest, AnnotationsWinOverTheCommand) {
  api::Pod pod;
  api::Container ctr;
  ctr.command = {"echo", "hi"};
  pod.spec.containers.push_back(ctr);
  pod.meta.annotations["tidepool.dev/duration"] = "2m";
  pod.meta.annotations["tidepool.dev/exit-code"] = "7";
  EXPECT_EQ(*ContainerRunTime(pod, ctr), std::optional<Duration>(seconds(120)));
  EXPECT_EQ(*ContainerExitCode(pod, ctr), 7);
  pod.meta.annotations["tidepool.dev/duration"] = "soon";
  EXPECT_FALSE(ContainerRunTime(pod, ctr).ok());
}

// A host that holds ConfigMaps and Secrets only (what EnvConfigError and MountError read).
class ConfigHost : public KubeletHost {
 public:
  std::map<std::string, ConfigObject> configmaps, secrets;  // by namespace/name
  const ConfigObject* FindConfig(api::ConfigReference::Kind kind, std::string_view ns,
                                 std::string_view name) const override {
    const auto& index = kind == api::ConfigReference::Kind::kConfigMap ? configmaps : secrets;
    auto it = index.find(std::string(ns) + "/" + std::string(name));
    return it == index.end() ? nullptr : &it->second;
  }
  const PodRecord* GetPod(const std::string&) const override { return nullptr; }
  void UpdatePodStatus(const std::string&, api::PodStatus, std::vector<ContainerStatus>) override {}
  void Event(const api::Pod&, const std::string&, std::string_view, std::string_view,
             std::string) override {}
  void RemovePod(const std::string&) override {}
};

api::ConfigReference Ref(api::ConfigReference::Kind kind, std::string name,
                         std::vector<std::string> keys = {}, bool optional = false) {
  return api::ConfigReference{kind, std::move(name), std::move(keys), optional};
}

struct ConfigCase {
  std::string name;
  std::vector<api::ConfigReference> refs;
  std::string env_error, mount_error;
};

// The kubelet's makeEnvironmentVariables (env reads a ConfigMap's data only) and the configmap,
// secret and projected volume plugins' SetUp (binaryData counts; errors aggregated).
TEST(PodLifecycleTest, MissingConfigMapsSecretsAndKeysAreTheKubeletsErrors) {
  ConfigHost host;
  host.configmaps["default/cfg"] = ConfigObject{{"mode"}, {"blob"}};
  host.secrets["default/creds"] = ConfigObject{{"token"}, {}};
  host.configmaps["other/elsewhere"] = ConfigObject{{"mode"}, {}};
  constexpr auto kCm = api::ConfigReference::Kind::kConfigMap;
  constexpr auto kSecret = api::ConfigReference::Kind::kSecret;
  const std::vector<ConfigCase> cases = {
      {"all found", {Ref(kCm, "cfg", {"mode"}), Ref(kSecret, "creds", {"token"})}, "", ""},
      {"no references", {}, "", ""},
      {"a missing ConfigMap",
       {Ref(kCm, "absent")},
       "configmap \"absent\" not found",
       "configmap \"absent\" not found"},
      {"another namespace's is not found",
       {Ref(kCm, "elsewhere")},
       "configmap \"elsewhere\" not found",
       "configmap \"elsewhere\" not found"},
      {"a missing Secret",
       {Ref(kSecret, "nope", {"token"})},
       "secret \"nope\" not found",
       "secret \"nope\" not found"},
      {"optional and missing", {Ref(kCm, "absent", {"k"}, true)}, "", ""},
      {"a missing key",
       {Ref(kCm, "cfg", {"port"})},
       "couldn't find key port in ConfigMap default/cfg",
       "configmap references non-existent config key: port"},
      {"a Secret's missing key",
       {Ref(kSecret, "creds", {"password"})},
       "couldn't find key password in Secret default/creds",
       "references non-existent secret key: password"},
      {"optional and a missing key", {Ref(kCm, "cfg", {"port"}, true)}, "", ""},
      {"a binaryData key: a volume's, not env's",
       {Ref(kCm, "cfg", {"blob"})},
       "couldn't find key blob in ConfigMap default/cfg",
       ""},
      {"the first error of env, all of a projected volume",
       {Ref(kCm, "absent"), Ref(kSecret, "nope"), Ref(kCm, "absent")},
       "configmap \"absent\" not found",
       "[configmap \"absent\" not found, secret \"nope\" not found]"},
  };
  for (const ConfigCase& c : cases) {
    SCOPED_TRACE(c.name);
    api::Pod pod;
    pod.meta.namespace_ = "default";
    api::Container ctr;
    ctr.env_config = c.refs;
    api::Volume vol;
    vol.name = "v";
    vol.config = c.refs;
    EXPECT_EQ(EnvConfigError(host, pod, ctr), c.env_error);
    EXPECT_EQ(MountError(host, pod, vol), c.mount_error);
  }
}

}  // namespace
}  // namespace tidepool::kubelet
