package provider

// Name is the provider's name in the descriptor and the MCP handshake.
const Name = "cdpprovider"

// Version is the provider's version, the one place it is set.
const Version = "0.1.0"
