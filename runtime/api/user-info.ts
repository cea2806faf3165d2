// The user a request acts for, as API objects carry it (upstream's authentication/v1 UserInfo: an
// AdmissionReview's userInfo, the SelfSubject reviews' user, an authorizer's subject). Admission and
// authorization both read it, so it lives below both.

export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}
