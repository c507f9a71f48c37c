// Kubebuilder's generate.sh command lines for project-v4 (the Go-only flags left out, see
// test/e2e/project-v4.test.ts), shared by the e2e test that runs them through kubeforge and by
// test/oracle/kubebuilder.test.ts, which runs them through kubebuilder too.

export const CERT_MANAGER =
  '--external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain=io --external-api-module=github.com/cert-manager/cert-manager@v1.20.2';

/** generate.sh's `$kb` lines for project-v4, as written there. */
export const PROJECT_V4_COMMANDS = `
create api --group crew --version v1 --kind Captain --controller=true --resource=true --make=false --controller-name=captain
create api --group crew --version v1 --kind Captain --controller=true --resource=true --make=false --force
create api --group crew --version v1 --kind Captain --controller=true --resource=false --make=false --controller-name=captain-backup
create webhook --group crew --version v1 --kind Captain --defaulting --make=false
create webhook --group crew --version v1 --kind Captain --programmatic-validation --make=false
create api --group crew --version v1 --kind FirstMate --controller=true --resource=true --make=false
create api --group crew --version v2 --kind FirstMate --controller=false --resource=true --make=false
create webhook --group crew --version v1 --kind FirstMate --conversion --make=false --spoke v2
create api --group crew --version v1 --kind Sailor --controller=true --resource=true --make=false
create webhook --group crew --version v1 --kind Sailor --defaulting --defaulting-path=/custom-mutate-sailor --make=false
create webhook --group crew --version v1 --kind Sailor --programmatic-validation --validation-path=/custom-validate-sailor --make=false
create api --group crew --version v1 --kind Admiral --plural=admirales --controller=true --resource=true --namespaced=false --make=false
create webhook --group crew --version v1 --kind Admiral --plural=admirales --defaulting --make=false
create webhook --group crew --version v1 --kind Admiral --plural=admirales --programmatic-validation --validation-path=/custom-validate-admiral --make=false
create api --group cert-manager --version v1 --kind Certificate --controller=true --resource=false --make=false ${CERT_MANAGER}
create webhook --group cert-manager --version v1 --kind Issuer --defaulting ${CERT_MANAGER}
create webhook --group core --version v1 --kind Pod --defaulting
create webhook --group apps --version v1 --kind Deployment --defaulting
create webhook --group apps --version v1 --kind Deployment --programmatic-validation
create api --group crew --version v1 --kind Navigator --controller=true --resource=true --make=false`;
