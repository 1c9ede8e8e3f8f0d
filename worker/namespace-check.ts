// What a studyflow worker or receiver needs of its Temporal namespace: that it exists, and that every one of
// studyflow's search attributes is registered in it (workflows are started and found by them: without
// StudyflowStudy an apply fails with "no mapping defined for search attribute"). Checked through the
// Workflow service only (describe the namespace, then one visibility count per attribute), so that it works
// on a self-hosted cluster and on Temporal Cloud alike, where the Operator service is refused.
import { SEARCH_ATTRIBUTE_TYPES } from '../workflows/search-attributes';

/** The two Workflow-service calls this needs: both Connection (client) and NativeConnection (worker) have them. */
export interface NamespaceService {
  describeNamespace(request: { namespace: string }): Promise<unknown>;
  countWorkflowExecutions(request: { namespace: string; query: string }): Promise<unknown>;
}

/** gRPC status codes used here. */
const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;

const grpcCode = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
};

/** The namespace does not exist on the cluster. */
export class NamespaceMissingError extends Error {
  constructor(
    readonly namespace: string,
    readonly address: string,
  ) {
    super(
      `namespace ${namespace} does not exist on ${address}: create it (temporal operator namespace create --namespace ${namespace} --address ${address}), ` +
        `then register studyflow's search attributes in it (docs/operations.md, "Setting up a cluster")`,
    );
    this.name = 'NamespaceMissingError';
  }
}

/** One or more of studyflow's search attributes are not registered in the namespace; names each. */
export class SearchAttributesMissingError extends Error {
  constructor(
    readonly namespace: string,
    readonly missing: string[],
  ) {
    super(
      `namespace ${namespace} lacks ${missing.length === 1 ? "studyflow's search attribute" : `${missing.length} of studyflow's search attributes`}: ` +
        `${missing.map((name) => `${name} (${SEARCH_ATTRIBUTE_TYPES[name]})`).join(', ')}; ` +
        `register ${missing.length === 1 ? `it with temporal operator search-attribute create --namespace ${namespace} --name ${missing[0]} --type ${SEARCH_ATTRIBUTE_TYPES[missing[0]]}` : `each with temporal operator search-attribute create --namespace ${namespace} --name NAME --type TYPE`} (docs/operations.md, "Setting up a cluster")`,
    );
    this.name = 'SearchAttributesMissingError';
  }
}

/** Throws NamespaceMissingError when `namespace` does not exist; other failures (unreachable, refused) as they come. */
export async function requireNamespace(service: NamespaceService, namespace: string, address: string): Promise<void> {
  try {
    await service.describeNamespace({ namespace });
  } catch (error) {
    if (grpcCode(error) === NOT_FOUND) throw new NamespaceMissingError(namespace, address);
    throw error;
  }
}

/**
 * studyflow's search attributes that the namespace lacks, in their declared order ([] when all are there).
 * A visibility query naming an attribute the namespace does not know is refused (INVALID_ARGUMENT, naming it).
 */
export async function missingSearchAttributes(service: NamespaceService, namespace: string): Promise<string[]> {
  const missing: string[] = [];
  for (const name of Object.keys(SEARCH_ATTRIBUTE_TYPES)) {
    try {
      await service.countWorkflowExecutions({ namespace, query: `${name} IS NOT NULL` });
    } catch (error) {
      if (grpcCode(error) === INVALID_ARGUMENT && String((error as Error).message ?? '').includes(name)) missing.push(name);
      else throw error;
    }
  }
  return missing;
}

/** Both checks: the namespace exists and has every search attribute; throws the named error otherwise. */
export async function requireStudyflowNamespace(service: NamespaceService, namespace: string, address: string): Promise<void> {
  await requireNamespace(service, namespace, address);
  const missing = await missingSearchAttributes(service, namespace);
  if (missing.length) throw new SearchAttributesMissingError(namespace, missing);
}
