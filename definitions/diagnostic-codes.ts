// The catalogue of diagnostic codes. Codes are stable: tools and CI filters match on them, and
// docs/study-format.md lists every one (a test keeps the two in step).
//   SF1xxx file and YAML   SF2xxx structure (JSON Schema)   SF3xxx pre-2025-12-18 names
//   SF4xxx target-group rules (SF41xx profiles, SF42xx activity exclusions, SF43xx webhooks, SF44xx notify targets,
//   SF45xx guards, budget, the forecast launch rule and soft launches)
//   SF5xxx references between names and files   SF6xxx ID list and reversal files   SF7xxx credentials and ${ENV}

export type Severity = 'error' | 'warning';

export interface DiagnosticCodeInfo {
  severity: Severity;
  title: string;
}

export const DIAGNOSTIC_CODES = {
  SF1001: { severity: 'error', title: 'file cannot be read' },
  SF1002: { severity: 'error', title: 'YAML syntax error' },
  SF1003: { severity: 'error', title: 'duplicate key in a mapping' },
  SF1004: { severity: 'error', title: 'the document is empty or not a mapping' },
  SF1005: { severity: 'error', title: 'more than one YAML document in the file' },
  SF1006: { severity: 'warning', title: 'YAML warning' },
  SF1007: { severity: 'error', title: 'the file is not text' },
  SF1008: { severity: 'error', title: 'nesting too deep' },
  SF1009: { severity: 'error', title: 'aliases expand too far' },

  SF2001: { severity: 'error', title: 'required field missing' },
  SF2002: { severity: 'error', title: 'unknown field' },
  SF2003: { severity: 'error', title: 'wrong type' },
  SF2004: { severity: 'error', title: 'value not allowed' },
  SF2005: { severity: 'error', title: 'value has the wrong form' },
  SF2006: { severity: 'error', title: 'number out of range' },
  SF2007: { severity: 'error', title: 'wrong length' },
  SF2008: { severity: 'error', title: 'duplicate list items' },
  SF2009: { severity: 'error', title: 'null where a value is required' },
  SF2010: { severity: 'error', title: 'unsupported format version' },
  SF2011: { severity: 'error', title: 'invalid key' },

  SF3001: { severity: 'error', title: 'field renamed in API version 2025-12-18' },
  SF3002: { severity: 'error', title: 'value renamed in API version 2025-12-18' },
  SF3003: { severity: 'error', title: 'field the API assigns, not settable from a study file' },
  SF3004: { severity: 'error', title: 'text where API version 2025-12-18 takes an amount of money' },

  SF4001: { severity: 'error', title: 'required draft field missing' },
  SF4002: { severity: 'error', title: 'live_url required to launch automatically' },
  SF4003: { severity: 'warning', title: 'live_url missing: the target group cannot be launched yet' },
  SF4004: { severity: 'error', title: 'recontact live_url lacks [%RECONTACT_RSID%]' },
  SF4005: { severity: 'error', title: 'recontact study without a recontact list' },
  SF4006: { severity: 'error', title: 'profiling on a recontact study' },
  SF4007: { severity: 'error', title: 'recontact list on a study that is not recontact' },
  SF4008: { severity: 'warning', title: 'unknown study_type' },
  SF4009: { severity: 'error', title: 'study without target groups' },
  SF4010: { severity: 'error', title: 'moved_from conflict' },
  SF4011: { severity: 'error', title: 'timing values out of order' },
  SF4012: { severity: 'error', title: 'calendar suggestions cannot use these values' },
  SF4013: { severity: 'error', title: 'feature needs API version 2025-12-18' },
  SF4014: { severity: 'warning', title: 'filling_goal above the target-group cap of 10,000' },
  SF4015: { severity: 'error', title: 'project without a project manager' },
  SF4016: { severity: 'error', title: 'fielding window ends before it starts' },
  SF4017: { severity: 'error', title: 'allocation minimum above its maximum' },
  SF4018: { severity: 'error', title: 'launch.after names its own target group' },
  SF4019: { severity: 'error', title: 'launch.after forms a cycle' },
  SF4020: { severity: 'error', title: 'launch gives both at and after' },

  SF4101: { severity: 'error', title: 'duplicate selection condition' },
  SF4102: { severity: 'error', title: 'duplicate range condition' },
  SF4103: { severity: 'warning', title: 'duplicate open-ended values (zip codes) will be removed' },
  SF4104: { severity: 'error', title: 'range min greater than max' },
  SF4105: { severity: 'error', title: 'target without a quota while quotas are enabled' },
  SF4107: { severity: 'error', title: 'quota percentages add up to less than 100' },
  SF4108: { severity: 'error', title: 'quota goals add up to less than filling_goal' },
  SF4109: { severity: 'error', title: 'quota goal above filling_goal' },
  SF4110: { severity: 'warning', title: 'quota ignored because quotas are disabled' },
  SF4111: { severity: 'error', title: 'quota gives both completes_goal and completes_goal_percentage' },
  SF4112: { severity: 'error', title: 'quota without a goal' },
  SF4113: { severity: 'error', title: 'duplicate profile name' },
  SF4114: { severity: 'error', title: 'duplicate quota name' },
  SF4115: { severity: 'error', title: 'nominal and percentage quotas in one target group' },
  SF4116: { severity: 'error', title: 'more than one profile template in the API' },
  SF4117: { severity: 'error', title: 'regular profile with more than one question' },
  SF4118: { severity: 'error', title: 'open-ended values disagree with allow_all_values' },
  SF4119: { severity: 'error', title: 'blended_type on a regular profile' },

  SF4201: { severity: 'error', title: 'activity duration out of range' },
  SF4202: { severity: 'error', title: 'activity item needs exactly one reference' },
  SF4203: { severity: 'error', title: 'activity items repeat a reference with the same statuses' },
  SF4204: { severity: 'warning', title: 'activity items overlap in statuses' },

  SF4301: { severity: 'warning', title: 'webhook URL is not https' },
  SF4302: { severity: 'warning', title: 'unknown webhook event' },
  SF4303: { severity: 'error', title: 'duplicate webhook URL' },
  SF4304: { severity: 'error', title: 'webhook event of another API profile' },
  SF4305: { severity: 'error', title: 'a field the API profile does not take' },

  SF4401: { severity: 'error', title: 'notification URL written in the file' },
  SF4402: { severity: 'error', title: 'notification url is not a ${NAME} reference' },
  SF4403: { severity: 'error', title: 'notification target listed twice' },

  SF4501: { severity: 'error', title: 'guard without exactly one kind' },
  SF4502: { severity: 'error', title: 'min_entrants on a guard that counts no entrants' },
  SF4503: { severity: 'error', title: 'no_completes_for shorter than one hour' },
  SF4504: { severity: 'warning', title: 'no_completes_for as long as the fielding window' },
  SF4505: { severity: 'error', title: 'amount in a currency other than the study\'s' },
  SF4506: { severity: 'warning', title: 'notify-only guard with no target for guard_tripped' },
  SF4507: { severity: 'error', title: 'require_forecast_before_end without end_fielding_at' },
  SF4508: { severity: 'warning', title: 'quota_behind on a target group without quotas' },
  SF4510: { severity: 'error', title: 'soft launch min_completes above its completes' },
  SF4511: { severity: 'error', title: 'percentage over 100' },
  SF4512: { severity: 'error', title: 'soft launch pass threshold on the failing side of its fail threshold' },
  SF4513: { severity: 'error', title: 'interview-length multiple without an expected length of interview' },
  SF4514: { severity: 'error', title: 'soft launch max_duration beyond the fielding window' },
  SF4515: { severity: 'error', title: 'soft launch takes the whole filling goal' },
  SF4516: { severity: 'error', title: 'soft_launch and the fielding assistant\'s soft_launch module both given' },

  SF5001: { severity: 'error', title: 'unknown target group' },
  SF5002: { severity: 'error', title: 'unknown exclusion group' },
  SF5003: { severity: 'error', title: 'unknown profile template' },
  SF5004: { severity: 'error', title: 'duplicate study id' },
  SF5005: { severity: 'error', title: 'name declared in both the study and shared.yaml' },
  SF5006: { severity: 'warning', title: 'exclusion group without target groups' },

  SF6001: { severity: 'error', title: 'ID list file cannot be read' },
  SF6002: { severity: 'error', title: 'ID list has a header line' },
  SF6003: { severity: 'error', title: 'invalid ID' },
  SF6004: { severity: 'error', title: 'blank line in an ID list' },
  SF6005: { severity: 'error', title: 'too many IDs in one file' },
  SF6006: { severity: 'warning', title: 'duplicate IDs will be removed' },
  SF6007: { severity: 'error', title: 'ID list is empty' },
  SF6008: { severity: 'error', title: 'too many excluded IDs for one target group' },
  SF6009: { severity: 'error', title: 'line too long in an ID list' },
  SF6010: { severity: 'error', title: 'ID list is not text' },
  SF6011: { severity: 'error', title: 'ID list outside the study repository' },
  SF6012: { severity: 'error', title: 'comment line in a reversal file' },
  SF6013: { severity: 'error', title: 'RID listed twice in the reversal files' },
  SF6014: { severity: 'error', title: 'RID under two reason codes' },
  SF6015: { severity: 'error', title: 'reversal line without a valid reason code' },
  SF6016: { severity: 'error', title: 'too many reversals' },
  SF6017: { severity: 'error', title: 'RID both reversed and an approved complete' },

  SF7001: { severity: 'error', title: 'credential written in the file' },
  SF7002: { severity: 'error', title: 'environment variable not set' },
  SF7003: { severity: 'error', title: 'malformed ${ENV} reference' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;
