// Wire types shared by several operations, written from the published reference (components/schemas).
import { z } from 'zod';

/** ProjectID, TargetGroupID, ExclusionGroupID, job ids: ULIDs. */
export const ULID_PATTERN = /^[0-9A-Z]{26}$/;
/** TargetGroupCustomerReferenceNumber and the project's reference number: letters, digits, `-`, `_`, space. */
export const CUSTOMER_REFERENCE_PATTERN = /^[a-zA-Z0-9\-_ ]*$/;

/** A resource id as the reference gives it (ULID). */
export const ResourceId = z.string().regex(ULID_PATTERN, 'is not a ULID (^[0-9A-Z]{26}$)');

/** The reference's error object (Error): `{id?, object, detail, invalid_params?}`. */
export const ErrorBody = z.object({
  id: z.string().optional(),
  object: z.string(),
  detail: z.string(),
  invalid_params: z.array(z.object({ name: z.string(), reason: z.string() })).nullable().optional(),
});

/** NextCursor: a string, null on the last page of some lists. */
export const NextCursor = z.string().nullable().optional();

/**
 * An identifier the reference types as an integer, read where the reference's own examples send it as a string of
 * digits (FetchTargetGroupResponse's example: `business_unit_id: "3337"`, its schema BusinessUnitIDAsInteger). The
 * string is accepted and normalised to the number; anything else that is not an integer stays a wire mismatch.
 * Used only where the reference's example shows the string (nothing else loosens).
 */
export const IntegerIdSentAsDigits = z.union([
  z.number().int(),
  z.string().regex(/^\d{1,15}$/, 'is not an integer or a string of digits').transform(Number),
]);
