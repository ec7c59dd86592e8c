"""``python -m gpu_components.policy``: serve the library's policy pack as a policy pack program does (it prints the
port of its gRPC analyzer on its first line of stdout and serves until killed). ``gpu-components plan --policy``
starts it (:mod:`gpu_components.plan.policy`); ``policy/`` at the repository root serves the same pack to
``pulumi preview --policy-pack policy``."""

from gpu_components.policy import policy_pack

policy_pack()
