"""Scripts the durable tests run as separate processes."""
