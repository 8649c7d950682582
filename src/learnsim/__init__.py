"""learnsim: learn a task-specific similarity for text from the supervision you already have."""
__version__ = "0.1.0"
