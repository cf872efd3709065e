// File: kube_objects_for_test.h
//
// Test support: the Kubernetes objects the runtime's actor tests create through the API.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tidepool::runtime::testing {

// A Ready node with 4 CPUs, 16Gi and `gpus` nvidia.com/gpu.
inline nlohmann::json Node(const std::string& name, const std::string& gpus) {
  const nlohmann::json resources = {
      {"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}, {"nvidia.com/gpu", gpus}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status",
           {{"capacity", resources},
            {"allocatable", resources},
            {"conditions", nlohmann::json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

// A pod in default with one container asking for a GPU; `scheduler` its schedulerName when set.
inline nlohmann::json GpuPod(const std::string& name, const std::string& scheduler = "") {
  nlohmann::json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec",
       {{"containers",
         nlohmann::json::array({{{"name", "c"},
                                 {"image", "busybox:1.36"},
                                 {"resources", {{"limits", {{"nvidia.com/gpu", 1}}}}}}})}}}};
  if (!scheduler.empty()) pod["spec"]["schedulerName"] = scheduler;
  return pod;
}

}  // namespace tidepool::runtime::testing
