import pytest

from amlkit.errors import ConfigError
from amlkit.policies.rules.aml_gpu_cuda_compatible import RULE
from tests.policies.compute_fixtures import attached_props, instance_props
from tests.policies.examples import Example
from tests.policies.helpers import DELETE, Public, changed, cluster_props, messages

PUBLIC = Public("AMLK-0029", "aml-gpu-cuda-compatible", level="mandatory", kind="resource")

HAPPY = changed(cluster_props(), "properties.properties.vmSize", "Standard_NC4as_T4_v3")
SIZE = "properties.properties.vmSize"
MUST = "AmlCompute cluster 'cpu-cluster' must use a GPU that CUDA"


def size(value):
    return changed(HAPPY, SIZE, value)


CASES = [
    ("off-without-cudaVersion", size("Standard_NC6"), None, []),
    ("T4-on-12.4", HAPPY, {"cudaVersion": "12.4"}, []),
    ("cpu-size-ignored", size("Standard_D4ds_v5"), {"cudaVersion": "9.0"}, []),
    ("hopper-needs-11.8", size("Standard_ND96isr_H100_v5"), {"cudaVersion": "11.7"},
     [f"{MUST} 11.7 supports; found Standard_ND96isr_H100_v5 (NVIDIA H100, Hopper, which needs CUDA 11.8 or later)."]),
    ("hopper-on-11.8", size("Standard_ND96isr_H100_v5"), {"cudaVersion": "11.8"}, []),
    ("blackwell-needs-12.8", size("Standard_ND128isr_NDR_GB200_v6"), {"cudaVersion": "12.4"},
     [f"{MUST} 12.4 supports; found Standard_ND128isr_NDR_GB200_v6 (NVIDIA GB200, Blackwell, which needs CUDA 12.8 "
      "or later)."]),
    ("GB300-sm103-needs-12.9", size("Standard_ND128isr_GB300_v6"), {"cudaVersion": "12.8"},
     [f"{MUST} 12.8 supports; found Standard_ND128isr_GB300_v6 (NVIDIA GB300, Blackwell, which needs CUDA 12.9 "
      "or later)."]),
    ("GB300-on-12.9", size("Standard_ND128isr_GB300_v6"), {"cudaVersion": "12.9"}, []),
    ("A10-sm86-needs-11.1", size("Standard_NV36ads_A10_v5"), {"cudaVersion": "11.0"},
     [f"{MUST} 11.0 supports; found Standard_NV36ads_A10_v5 (NVIDIA A10, Ampere, which needs CUDA 11.1 or later)."]),
    ("A100-sm80-on-11.0", size("Standard_NC24ads_A100_v4"), {"cudaVersion": "11.0"}, []),
    ("blackwell-on-13.0", size("Standard_NC128ds_xl_RTXPRO6000BSE_v6"), {"cudaVersion": "13.0"}, []),
    ("volta-dropped-by-13.0", size("Standard_ND40rs_v2"), {"cudaVersion": "13.0"},
     [f"{MUST} 13.0 supports; found Standard_ND40rs_v2 (NDv2, Volta, which CUDA 13.0 dropped)."]),
    ("volta-on-12.9", size("Standard_ND40rs_v2"), {"cudaVersion": "12.9"}, []),
    ("kepler-dropped-by-12.0", size("Standard_NC6"), {"cudaVersion": "12.0"},
     [f"{MUST} 12.0 supports; found Standard_NC6 (NVIDIA Tesla K80, Kepler, which CUDA 12.0 dropped)."]),
    ("maxwell-dropped-by-13.1", size("Standard_NV12s_v3"), {"cudaVersion": "13.1"},
     [f"{MUST} 13.1 supports; found Standard_NV12s_v3 (NVIDIA Tesla M60, Maxwell, which CUDA 13.0 dropped)."]),
    ("minor-versions-compare-numerically", size("Standard_ND96asr_v4"), {"cudaVersion": "10.10"},
     [f"{MUST} 10.10 supports; found Standard_ND96asr_v4 (NVIDIA A100, Ampere, which needs CUDA 11.0 or later)."]),
    ("amd-gpu-has-no-cuda", size("Standard_NV24ads_V710_v5"), {"cudaVersion": "12.4"},
     [f"{MUST} 12.4 supports; found Standard_NV24ads_V710_v5 (AMD Radeon Pro V710, an AMD Radeon Pro GPU, which "
      "CUDA does not support)."]),
    ("missing-size", size(DELETE), {"cudaVersion": "12.4"}, []),
    ("unknown-size", size("Standard_Foo9"), {"cudaVersion": "12.4"}, []),
    ("instance", instance_props(vmSize="Standard_NC6s_v3"), {"cudaVersion": "13.0"},
     ["Compute instance 'cpu-cluster' must use a GPU that CUDA 13.0 supports; found Standard_NC6s_v3 (NVIDIA V100, "
      "Volta, which CUDA 13.0 dropped)."]),
    ("attached-ignored", attached_props(), {"cudaVersion": "12.4"}, []),
]

EXAMPLE = Example.of_cases(CASES, fails="blackwell-needs-12.8", passes="T4-on-12.4")


@pytest.mark.parametrize(("props", "config", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_aml_gpu_cuda_compatible(props, config, expected):
    assert messages(RULE, props, config) == expected


def test_off_by_default():
    assert (RULE.level, RULE.defaults()) == ("mandatory", {})


@pytest.mark.parametrize("bad", ["12", "twelve", 12.4, "12.4.1", ".4"])
def test_bad_cuda_version_fails_closed(bad):
    with pytest.raises(ConfigError) as caught:
        messages(RULE, HAPPY, {"cudaVersion": bad})
    assert (caught.value.key_path, caught.value.problem) == (
        "aml-gpu-cuda-compatible.cudaVersion", "expected a CUDA version such as '12.4'")


@pytest.mark.parametrize(("compute_type", "twin"), [("Managed", True), ("managed", True), ("Kubernetes", False)],
                         ids=["managed", "managed-lowercase", "kubernetes-instance-type-is-no-vm-size"])
def test_a_managed_online_deployment_is_judged_by_its_instance_type_like_a_cluster_of_that_size(compute_type, twin):
    from tests.policies.compute_fixtures import DEPLOYMENT_TYPE, deployment_props

    config = {"cudaVersion": "12.0"}
    size = "Standard_NC6"
    cluster = messages(RULE, changed(cluster_props(), "properties.properties.vmSize", size), config, name="blue")
    deployment = messages(RULE, deployment_props(size, compute_type), config, name="blue", type_=DEPLOYMENT_TYPE)
    assert cluster, "the size must fail for a cluster"
    expected = [m.replace("AmlCompute cluster 'blue'", "Managed online deployment 'blue'") for m in cluster]
    assert deployment == (expected if twin else [])
