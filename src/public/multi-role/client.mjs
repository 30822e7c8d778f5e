// The shared lane's reference client: its content is written separately; this placeholder only lets the server serve it.
export {};
