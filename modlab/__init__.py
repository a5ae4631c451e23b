"""modlab: an autograded course on how torch.nn.Module really works."""
__version__ = "0.1.0"
