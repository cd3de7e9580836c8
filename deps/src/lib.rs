// Placeholder so cargo accepts the manifest; nothing is built.
