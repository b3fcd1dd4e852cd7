"""Files of the data directory: layout, durable writes, locks and schemas."""
