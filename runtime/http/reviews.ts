// The self reviews (SelfSubjectReview, SelfSubjectAccessReview, SelfSubjectRulesReview): virtual,
// create-only resources that are never stored, answered from the request's user and the server's
// authorizer (runtime/authorization). Served at `authentication.cluster.io/v1` and
// `authorization.cluster.io/v1`, and, as Tables are (README "Two compatibility choices"), under the
// upstream group names real kubectl POSTs to (`kubectl auth whoami|can-i` name
// `authentication.k8s.io` / `authorization.k8s.io`), answering in the group the client named.
// Discovery lists the cluster.io groups only.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo as AdmissionUser } from '../api/user-info.ts';
import type { Authorizer } from '../authorization/authorizer.ts';
import { selfSubjectAccessReview, selfSubjectReview, selfSubjectRulesReview } from '../authorization/reviews.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Obj } from '../api/object.ts';
import type { UserInfo } from './auth.ts';
import { BODY_TYPES, decodeObject, mediaType, readBody } from './body.ts';
import type { GroupVersion, ServedResource } from './discovery.ts';
import { negotiatePlain } from './negotiation.ts';
import { decodeProtobufObject, PROTOBUF } from './protobuf.ts';
import { sendValue, wantsPretty } from './respond.ts';
import { REVIEW_PROTOBUF_DECODERS } from './review-protobuf.ts';

type Review = 'authentication' | 'authorization';

interface ReviewResource {
  api: Review;
  kind: string;
  plural: string;
  answer(authorizer: Authorizer, user: AdmissionUser, body: Obj, group: string): Obj;
}

const RESOURCES: readonly ReviewResource[] = [
  { api: 'authentication', kind: 'SelfSubjectReview', plural: 'selfsubjectreviews', answer: (_a, user) => selfSubjectReview(user) },
  { api: 'authorization', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', answer: (a, user, body, group) => selfSubjectAccessReview(a, user, body, group) },
  { api: 'authorization', kind: 'SelfSubjectRulesReview', plural: 'selfsubjectrulesreviews', answer: (a, user, body) => selfSubjectRulesReview(a, user, body) },
];

const VERSION = 'v1';
/** Our group names, then the upstream names kubectl's typed clients use. */
const GROUP_SUFFIXES = ['cluster.io', 'k8s.io'] as const;
const ACCEPTED_BODIES = [...BODY_TYPES, PROTOBUF];

export class ReviewRouter {
  readonly #authorizer: Authorizer;
  readonly #byPath = new Map<string, { resource: ReviewResource; group: string }>();

  constructor(authorizer: Authorizer) {
    this.#authorizer = authorizer;
    for (const resource of RESOURCES) {
      for (const suffix of GROUP_SUFFIXES) {
        const group = `${resource.api}.${suffix}`;
        this.#byPath.set(`/apis/${group}/${VERSION}/${resource.plural}`, { resource, group });
      }
    }
  }

  /** Discovery entries: create only, cluster-scoped, in our groups. */
  groupVersions(): GroupVersion[] {
    const byGroup = new Map<string, ServedResource[]>();
    for (const r of RESOURCES) {
      const group = `${r.api}.cluster.io`;
      const served: ServedResource = {
        descriptor: {
          kind: r.kind,
          listKind: `${r.kind}List`,
          group,
          version: VERSION,
          plural: r.plural,
          singular: r.plural.slice(0, -1),
          shortNames: [],
          categories: [],
          namespaced: false,
          subresources: [],
          deleteReturns: 'Status',
          maturity: 'stable',
          generation: false,
          updateRequiresResourceVersion: false,
          nameSyntax: 'dns1123Subdomain',
          fieldSelectors: [],
          printerColumns: [],
        },
        verbs: ['create'],
        subresources: [],
      };
      byGroup.set(group, [...(byGroup.get(group) ?? []), served]);
    }
    return [...byGroup.entries()].map(([group, resources]) => ({ group, version: VERSION, resources }));
  }

  /** Serves the request when the path is a review's; false otherwise. */
  async serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, user: UserInfo): Promise<boolean> {
    const target = this.#byPath.get(path);
    if (!target) return false;
    // Only create is routed, so another method is the route-level 405, as go-restful answers.
    if (req.method !== 'POST') throw ApiError.methodNotAllowed();
    const encoding = negotiatePlain(req.headers.accept, true);
    const buf = await readBody(req);
    const body = mediaType(req.headers['content-type']) === PROTOBUF
      ? decodeProtobufObject(buf, ACCEPTED_BODIES, REVIEW_PROTOBUF_DECODERS)
      : (decodeObject(buf, req.headers['content-type'], target.resource.kind).value as Obj);
    // as upstream's create handler: a body may leave apiVersion and kind out, but not name others
    const apiVersion = `${target.group}/${VERSION}`;
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
      throw ApiError.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
    }
    if (body.kind !== undefined && body.kind !== target.resource.kind) {
      throw ApiError.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${target.resource.kind})`);
    }
    const reviewer: AdmissionUser = { username: user.name, uid: user.uid, groups: [...user.groups] };
    const answer = target.resource.answer(this.#authorizer, reviewer, body, target.group);
    const { kind, ...rest } = answer;
    const value = { kind, apiVersion, ...rest };
    sendValue(res, 201, value, encoding === 'yaml' ? 'application/yaml' : 'application/json', encoding, wantsPretty(req, query));
    return true;
  }
}
