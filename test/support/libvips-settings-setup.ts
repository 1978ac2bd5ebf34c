import { applyLibvipsSettings } from '../../src/engine/libvips-settings';

// Jest gives every test file modules of its own, so each file loads sharp again, and sharp's
// load turns libvips' operation cache back on for the whole worker process (see
// libvips-settings.ts). Every test file runs with the service's settings instead, whatever ran
// before it in the worker.
applyLibvipsSettings({ pipelineThreads: null });
