"""A stand-in for the safetensors package (not in Debian 12), enough to run the README's
PyTorch snippet in the tests: safetensors.torch.load_file."""
