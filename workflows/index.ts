// The workflow bundle's entry point: every workflow type the worker registers.
export { studyWorkflow } from './study-workflow';
export { targetGroupWorkflow } from './target-group-workflow';
