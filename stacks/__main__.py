"""Example program: the stack's config becomes an EKS cluster with GPU node pools (gpu_components.program)."""

from gpu_components import program

program.main()
