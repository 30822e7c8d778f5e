/** The tests' bundles (test/support/global-setup.ts) are built by the same bundler as `npm start`'s server bundle. */
export { bundle } from '../../scripts/bundle/bundle.ts';
