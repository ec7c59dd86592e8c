"""Entry point of the gpu-components Pulumi plugin (``PulumiPlugin.yaml``): Pulumi runs this directory to serve the
package to ``pulumi package add`` and to the programs that use it (:func:`gpu_components.package.main`)."""

from gpu_components.package import main

if __name__ == "__main__":
    main()
