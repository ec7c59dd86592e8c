"""Entry point of the gpu_components policy pack; the rules live in :mod:`gpu_components.policy`."""

from gpu_components.policy import policy_pack

policy_pack()
