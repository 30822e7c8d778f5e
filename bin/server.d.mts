/** bin/server.mjs exports nothing: importing it starts the server (`npm start`). */
export {};
