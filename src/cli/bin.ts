import { run } from './main.ts';

// A reader that stops early (`custom-launch … | head`) closes the pipe: stop writing, quietly, as other CLIs do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

process.exitCode = await run(process.argv.slice(2));
