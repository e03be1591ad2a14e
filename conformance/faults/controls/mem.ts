// Controls of member creation (MEM): another wording of its message; a body refused as a validation failure.
import type { Control } from '../fault.js';
import { bodyJson, jsonString, makeResponse } from '../exchange.js';
import { operationOf } from '../operations.js';
import { only } from './util.js';

export const MEM_CONTROLS: Control[] = [
  {
    name: 'member-assigned-other-words',
    area: 'MEM',
    description:
      'CreateMember on a proposal with a member answers the JSON string "Proposal 12 already has a member (MemberID 34); nothing was created."',
    allowedBy:
      'Section 7: "HTTP 500; body is a JSON string saying that a MemberID is already assigned to the proposal record" (the wording is not shown)',
    select: ['MEM-'],
    rewrite: only(['createMember'], async (req, ctx, next) => {
      const route = operationOf(req);
      const res = await next(req);
      if (route.op !== 'createMember' || res.status !== 500 || typeof bodyJson(res) !== 'string') return res;
      const r = await ctx.call('GET', `/api/Proposal/${Number(route.proposalId)}?columns=MemberID`);
      const member = r.json?.Record?.MemberID ?? '?';
      return jsonString(
        500,
        `Proposal ${Number(route.proposalId)} already has a member (MemberID ${member}); nothing was created.`,
      );
    }),
  },
  {
    name: 'member-body-refused-as-validation-failure',
    area: 'MEM',
    description:
      'CreateMember with a non-empty body answers HTTP 200 {IsSuccessful: false, RecordID: 0, Message: "CreateMember takes no body"} and creates nothing; without a body it creates the member',
    allowedBy:
      'Section 4.5: "Body | none"; section 7: "CreateMember with a validation failure | HTTP 200; IsSuccessful false; detail in Message" (which requests fail validation is not shown)',
    select: ['MEM-'],
    rewrite: only(['createMember'], async (req, _ctx, next) => {
      if (operationOf(req).op !== 'createMember' || req.body.length === 0 || req.body.toString().trim() === '')
        return next(req);
      return makeResponse(200, { IsSuccessful: false, RecordID: 0, Message: 'CreateMember takes no body' });
    }),
  },
];
