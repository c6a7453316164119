/**
 * `npm run bench:limiter`: the in-process limiter against the sandbox (./limiter-local.ts);
 * `npm run bench:limiter -- --redis`: the Redis limiter shared by several processes
 * (./limiter-redis.ts).
 */
if (process.argv.includes('--redis')) await import('./limiter-redis.js');
else await import('./limiter-local.js');
